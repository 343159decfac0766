//! The global allocator: mimalloc, asked for alignment only when a type
//! needs more than every mimalloc block has.
//!
//! The `mimalloc` crate's allocator passes every request to
//! `mi_malloc_aligned`, with Rust's alignment. mimalloc 3 serves that from
//! its fast path only while the size class's current page has a free
//! block; when that runs out, a size that is not a power of two (24, 48,
//! 80 bytes: most of our structs and strings) is over-allocated by the
//! alignment from the next larger class, and the exhausted page is not
//! refilled from its freed blocks, because only the plain allocation path
//! collects them. Every block mimalloc hands out is aligned to 8 bytes (the
//! first block of a page to 16, block sizes are multiples of 8), so the
//! plain functions serve any alignment up to 8, which is nearly every
//! allocation; larger ones still go through the aligned functions.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// The alignment every mimalloc block has.
const BLOCK_ALIGN: usize = 8;

/// mimalloc, plain where the alignment allows.
pub(crate) struct MiMalloc;

/// Whether a plain mimalloc block of `size` bytes is aligned enough.
fn plain(align: usize, size: usize) -> bool {
    align <= BLOCK_ALIGN && align <= size
}

// SAFETY: every function returns memory from mimalloc, aligned as the
// layout asks (see `plain`), or null; `dealloc` and `realloc` get only
// pointers these functions returned, which `mi_free` and the `mi_realloc`
// functions take whichever function allocated them.
unsafe impl GlobalAlloc for MiMalloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: mimalloc's allocation functions take any size.
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi::mi_malloc(layout.size()).cast()
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi::mi_zalloc(layout.size()).cast()
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator, so from mimalloc.
        unsafe { mi::mi_free(ptr.cast::<c_void>()) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout`; the new
        // block keeps the layout's alignment (see `plain`).
        unsafe {
            if plain(layout.align(), new_size) {
                mi::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks of every small size and alignment come back aligned, keep
    /// their contents through growing and shrinking, and zeroed ones are
    /// zero.
    #[test]
    fn blocks_are_aligned_and_keep_their_contents() {
        let allocator = MiMalloc;
        for align in [1, 2, 4, 8, 16, 32, 64] {
            for size in (align..=600).step_by(align) {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: a non-zero size; every pointer is checked for
                // null and freed once with its layout.
                unsafe {
                    let zeroed = allocator.alloc_zeroed(layout);
                    assert!(!zeroed.is_null());
                    assert_eq!(zeroed as usize % align, 0, "size {size} align {align}");
                    assert!((0..size).all(|i| *zeroed.add(i) == 0));
                    allocator.dealloc(zeroed, layout);

                    let block = allocator.alloc(layout);
                    assert!(!block.is_null());
                    assert_eq!(block as usize % align, 0, "size {size} align {align}");
                    for i in 0..size {
                        *block.add(i) = i as u8;
                    }
                    let grown = allocator.realloc(block, layout, size * 3);
                    assert_eq!(grown as usize % align, 0, "grown {size} align {align}");
                    assert!((0..size).all(|i| *grown.add(i) == i as u8));
                    let grown_layout = Layout::from_size_align(size * 3, align).unwrap();
                    let shrunk = allocator.realloc(grown, grown_layout, size);
                    assert_eq!(shrunk as usize % align, 0, "shrunk {size} align {align}");
                    assert!((0..size).all(|i| *shrunk.add(i) == i as u8));
                    allocator.dealloc(shrunk, layout);
                }
            }
        }
    }
}
