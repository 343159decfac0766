//! Java's conversions between primitive types and their boxes: boxing,
//! unboxing, widening and numeric promotion.

use refscope_symbols::Prim;

use crate::ty::{STRING, Ty};

pub(super) fn box_if_primitive(ty: &Ty) -> Ty {
    match ty {
        Ty::Prim(p) if *p != Prim::Void => Ty::class(p.boxed()),
        other => other.clone(),
    }
}

pub(super) fn unbox(ty: &Ty) -> Option<Prim> {
    match ty {
        Ty::Prim(p) => Some(*p),
        Ty::Class(name, _) => Prim::unboxed(name),
        _ => None,
    }
}

/// Widening primitive conversion (identity included).
pub(super) fn widens(from: Prim, to: Prim) -> bool {
    use Prim::*;
    from == to
        || matches!(
            (from, to),
            (Byte, Short | Int | Long | Float | Double)
                | (Short, Int | Long | Float | Double)
                | (Char, Int | Long | Float | Double)
                | (Int, Long | Float | Double)
                | (Long, Float | Double)
                | (Float, Double)
        )
}

pub(super) fn promote(p: Prim) -> Prim {
    match p {
        Prim::Byte | Prim::Short | Prim::Char => Prim::Int,
        other => other,
    }
}

pub(super) fn binary_promote(a: Prim, b: Prim) -> Prim {
    use Prim::*;
    if a == Double || b == Double {
        Double
    } else if a == Float || b == Float {
        Float
    } else if a == Long || b == Long {
        Long
    } else {
        Int
    }
}

pub(super) fn binary_type(op: &str, a: &Ty, b: &Ty) -> Ty {
    let is_string = |t: &Ty| t.class_name().is_some_and(|n| &**n == STRING);
    if op == "+" && (is_string(a) || is_string(b)) {
        return Ty::class(STRING);
    }
    let (Some(x), Some(y)) = (unbox(a), unbox(b)) else {
        return Ty::Unknown;
    };
    match op {
        "<<" | ">>" | ">>>" => Ty::Prim(promote(x)),
        "&" | "|" | "^" if x == Prim::Boolean && y == Prim::Boolean => Ty::Prim(Prim::Boolean),
        _ => Ty::Prim(binary_promote(x, y)),
    }
}
