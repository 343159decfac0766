//! The hierarchy questions resolution asks of a file's scope: signature
//! types instantiated, a class's supertypes, the hierarchy in lookup
//! order, methods and fields found by name, a type viewed as one of its
//! supertypes, subclassing, the single abstract method of a functional
//! interface.

use std::sync::Arc;

use refscope_symbols::lookups::NameSet;
use refscope_symbols::{ClassKind, ClassSig, TypeArg, TypeSig, flags};
use rustc_hash::FxHashSet as HashSet;

use crate::class::ClassEntry;
use crate::scope::FileScope;
use crate::ty::{Found, OBJECT, Subst, Ty, TyArgs};

/// Deepest class hierarchy walked; guards against cycles in broken code.
const MAX_DEPTH: usize = 40;

impl FileScope<'_> {
    /// Instantiates a signature type. Type variables not in `subst` become
    /// the erasure of their bound (looked up in `scopes`, innermost first).
    pub(crate) fn instantiate(
        &self,
        sig: &TypeSig,
        subst: &Subst,
        scopes: &[&[refscope_symbols::TypeParamSig]],
    ) -> Ty {
        self.instantiate_depth(sig, subst, scopes, 0)
    }

    fn instantiate_depth(
        &self,
        sig: &TypeSig,
        subst: &Subst,
        scopes: &[&[refscope_symbols::TypeParamSig]],
        depth: usize,
    ) -> Ty {
        if depth > 12 {
            return self.object();
        }
        match sig {
            TypeSig::Prim(p) => Ty::Prim(*p),
            TypeSig::Class { name, args } if args.is_empty() => {
                Ty::Class(name.clone(), TyArgs::NONE)
            }
            TypeSig::Class { name, args } => {
                // Collected straight into the Arc: one allocation.
                let args: TyArgs = args
                    .iter()
                    .map(|a| match a {
                        TypeArg::Type(t) | TypeArg::Extends(t) => {
                            self.instantiate_depth(t, subst, scopes, depth + 1)
                        }
                        TypeArg::Super(t) => self.instantiate_depth(t, subst, scopes, depth + 1),
                        TypeArg::Any => self.object(),
                    })
                    .collect();
                Ty::Class(name.clone(), args)
            }
            TypeSig::Array(inner) => Ty::Array(Arc::new(self.instantiate_depth(
                inner,
                subst,
                scopes,
                depth + 1,
            ))),
            TypeSig::Var(name) => {
                if let Some(t) = subst.get(name) {
                    return t.clone();
                }
                for params in scopes {
                    if let Some(p) = params.iter().find(|p| p.name == *name) {
                        return match p.bounds.first() {
                            Some(bound) => self.instantiate_depth(bound, subst, scopes, depth + 1),
                            None => self.object(),
                        };
                    }
                }
                self.object()
            }
            TypeSig::Unknown(_) => Ty::Unknown,
        }
    }

    /// The substitution of a class's type variables for a use of it:
    /// its arguments, or the erasure of each bound when raw.
    pub(crate) fn class_subst(&self, sig: &ClassSig, args: &[Ty]) -> Subst {
        let mut subst = Subst::default();
        if args.len() == sig.type_params.len() {
            for (p, a) in sig.type_params.iter().zip(args) {
                subst.bind(p.name.clone(), a.clone());
            }
        } else {
            let scopes = [sig.type_params.as_slice()];
            for p in &sig.type_params {
                let bound = match p.bounds.first() {
                    Some(b) => self.instantiate(b, &Subst::default(), &scopes),
                    None => self.object(),
                };
                subst.bind(p.name.clone(), bound);
            }
        }
        // Variables of enclosing classes and methods stand for the
        // erasure of their bounds; bound before the class's own, so its own
        // (and inner ones over outer ones) win lookups from the end.
        let outer_scopes = [sig.outer_type_params.as_slice()];
        for p in &sig.outer_type_params {
            if sig.type_params.iter().any(|own| own.name == p.name) {
                continue;
            }
            let bound = match p.bounds.first() {
                Some(b) => self.instantiate(b, &Subst::default(), &outer_scopes),
                None => self.object(),
            };
            subst.0.insert(0, (p.name.clone(), bound));
        }
        subst
    }

    /// The superclass and the interfaces of a class type, instantiated.
    pub(crate) fn supertypes_split(&self, ty: &Ty) -> (Option<Ty>, Vec<Ty>) {
        let Ty::Class(name, args) = ty else {
            return match ty {
                Ty::Array(_) => (Some(self.object()), Vec::new()),
                _ => (None, Vec::new()),
            };
        };
        let Some(entry) = self.get(name) else {
            return (None, Vec::new());
        };
        let sig = &entry.sig;
        let subst = self.class_subst(sig, args);
        let scopes = [sig.type_params.as_slice()];
        let superclass = sig
            .superclass
            .as_ref()
            .map(|s| self.instantiate(s, &subst, &scopes))
            .filter(|t| matches!(t, Ty::Class(..)));
        let interfaces = sig
            .interfaces
            .iter()
            .map(|i| self.instantiate(i, &subst, &scopes))
            .filter(|t| matches!(t, Ty::Class(..)))
            .collect();
        (superclass, interfaces)
    }

    /// The class types of a type's hierarchy in lookup order: the class,
    /// its superclass chain, then every interface breadth first, `Object`
    /// last. Memoized for the table's life, with the names its computation
    /// looked up, recorded again on a hit for an enclosing recording (field
    /// and method lookups ask for the same few hierarchies again and
    /// again). Like a hit in the table's own method memo, a hit needs no
    /// replay to the outside source: the table serves one file, whose
    /// first computation asked it already.
    pub(crate) fn hierarchy(&self, ty: &Ty) -> Arc<Vec<Ty>> {
        let key = (self.memo_partition(), ty.clone());
        let memo = &self.table.hierarchy_memo;
        if let Some((found, names)) = memo.read().expect("memo lock").get(&key) {
            self.log().record_all(names);
            return found.clone();
        }
        let (found, names) = self.nested(|| Arc::new(self.compute_hierarchy(ty)));
        let names = Arc::new(names);
        memo.write()
            .expect("memo lock")
            .insert(key, (found.clone(), names));
        found
    }

    fn compute_hierarchy(&self, ty: &Ty) -> Vec<Ty> {
        let mut out: Vec<Ty> = Vec::new();
        let mut seen: HashSet<Arc<str>> = HashSet::default();
        let mut queue: std::collections::VecDeque<Ty> = std::collections::VecDeque::new();
        let mut current = Some(match ty {
            Ty::Array(_) => self.object(),
            other => other.clone(),
        });
        while let Some(t) = current.take() {
            let Some(name) = t.class_name() else { break };
            if !seen.insert(name.clone()) || out.len() > MAX_DEPTH {
                break;
            }
            let (superclass, interfaces) = self.supertypes_split(&t);
            queue.extend(interfaces);
            out.push(t);
            current = superclass;
        }
        let n_classes = out.len();
        while let Some(t) = queue.pop_front() {
            let Some(name) = t.class_name() else { continue };
            if !seen.insert(name.clone()) || out.len() > n_classes + 4 * MAX_DEPTH {
                continue;
            }
            let (_, interfaces) = self.supertypes_split(&t);
            queue.extend(interfaces);
            out.push(t);
        }
        if !seen.contains(OBJECT) {
            out.push(self.object());
        }
        out
    }

    /// Methods named `name` visible in a type, most derived first; a
    /// method overridden by one found earlier is left out. Memoized for
    /// the whole revision.
    pub(crate) fn methods_named(&self, ty: &Ty, name: &str) -> Arc<Vec<Found>> {
        let key = (self.memo_partition(), ty.clone(), Arc::<str>::from(name));
        let memo = self.table.method_memo.map();
        if let Some((found, names)) = memo.read().expect("memo lock").get(&key) {
            self.log().record_all(names);
            return found.clone();
        }
        if let Some(shared) = &self.table.shared {
            let shared_key = (shared.partition, key.1.clone(), key.2.clone());
            let hit = shared
                .methods
                .map()
                .read()
                .expect("memo lock")
                .get(&shared_key)
                .cloned();
            if let Some((found, names)) = hit
                && self.shareable(&found)
            {
                self.log().record_all(&names);
                for name in names.iter() {
                    self.replay_lookup(name);
                }
                memo.write()
                    .expect("memo lock")
                    .insert(key, (found.clone(), names));
                return found;
            }
        }
        let (found, names) = self.nested(|| Arc::new(self.compute_methods_named(ty, name)));
        let names = match &self.table.shared {
            Some(shared) => shared.methods.intern(names),
            None => Arc::new(names),
        };
        if let Some(shared) = &self.table.shared
            && self.shareable(&found)
        {
            shared.methods.map().write().expect("memo lock").insert(
                (shared.partition, key.1.clone(), key.2.clone()),
                (found.clone(), names.clone()),
            );
        }
        memo.write()
            .expect("memo lock")
            .insert(key, (found.clone(), names));
        found
    }

    /// Whether a method lookup's answer means the same to every file of a
    /// shared memo: not when it holds a class of the file resolving, which
    /// that file sees with lines and element indices and the others
    /// without.
    fn shareable(&self, found: &[Found]) -> bool {
        let file = self.file();
        !found
            .iter()
            .any(|f| f.class.sig.decl.is_some_and(|d| d.file == file))
    }

    fn compute_methods_named(&self, ty: &Ty, name: &str) -> Vec<Found> {
        let mut out: Vec<Found> = Vec::new();
        let mut signatures: Vec<Vec<String>> = Vec::new();
        for t in self.hierarchy(ty).iter() {
            let Ty::Class(class_name, args) = t else {
                continue;
            };
            let Some(entry) = self.get(class_name) else {
                continue;
            };
            if !entry.sig.methods.iter().any(|m| &*m.name == name) {
                continue;
            }
            let subst = self.class_subst(&entry.sig, args);
            for (index, m) in entry.sig.methods.iter().enumerate() {
                if &*m.name != name {
                    continue;
                }
                let scopes = [m.type_params.as_slice(), entry.sig.type_params.as_slice()];
                let erased: Vec<String> = m
                    .params
                    .iter()
                    .map(|p| self.instantiate(p, &subst, &scopes).erased_name())
                    .collect();
                if signatures.contains(&erased) {
                    continue;
                }
                signatures.push(erased);
                out.push(Found {
                    class: entry.clone(),
                    index,
                    subst: subst.clone(),
                });
            }
        }
        out
    }

    /// The field named `name` of a type: declared, or inherited from the
    /// nearest supertype.
    pub(crate) fn field_named(
        &self,
        ty: &Ty,
        name: &str,
    ) -> Option<(Arc<ClassEntry>, usize, Subst)> {
        for t in self.hierarchy(ty).iter() {
            let Ty::Class(class_name, args) = t else {
                continue;
            };
            let Some(entry) = self.get(class_name) else {
                continue;
            };
            if let Some(index) = entry.sig.fields.iter().position(|f| &*f.name == name) {
                let subst = self.class_subst(&entry.sig, args);
                return Some((entry, index, subst));
            }
        }
        None
    }

    /// `ty` viewed as its supertype `target` (e.g. `ArrayList<String>` as
    /// `Iterable<String>`).
    pub(crate) fn as_super(&self, ty: &Ty, target: &str) -> Option<Ty> {
        if ty.class_name().is_some_and(|n| &**n == target) {
            return Some(ty.clone());
        }
        self.hierarchy(ty)
            .iter()
            .find(|t| t.class_name().is_some_and(|n| &**n == target))
            .cloned()
    }

    /// Whether class `sub` is `sup` or one of its subtypes.
    pub(crate) fn is_subclass(&self, sub: &str, sup: &str) -> bool {
        if sub == sup || sup == OBJECT {
            return true;
        }
        let mut seen: HashSet<Arc<str>> = HashSet::default();
        let mut stack: Vec<Arc<str>> = vec![sub.into()];
        while let Some(name) = stack.pop() {
            if &*name == sup {
                return true;
            }
            if !seen.insert(name.clone()) || seen.len() > 200 {
                continue;
            }
            let Some(entry) = self.get(&name) else {
                continue;
            };
            let sig = &entry.sig;
            for s in sig.superclass.iter().chain(&sig.interfaces) {
                if let TypeSig::Class { name, .. } = s {
                    stack.push(name.clone());
                }
            }
        }
        false
    }

    /// Runs `compute`, with the set of names it looks up (see
    /// [`refscope_symbols::lookups::LookupLog::nested`]).
    fn nested<T>(&self, compute: impl FnOnce() -> T) -> (T, NameSet) {
        self.log().nested(compute)
    }

    /// The single abstract method of a functional interface, with the
    /// substitution of the interface's type variables.
    pub(crate) fn functional_method(&self, ty: &Ty) -> Option<Found> {
        let Ty::Class(name, _) = ty else { return None };
        let entry = self.get(name)?;
        if entry.sig.kind != ClassKind::Interface {
            return None;
        }
        let mut found: Option<Found> = None;
        let mut seen_signatures: Vec<(Arc<str>, Vec<String>)> = Vec::new();
        for t in self.hierarchy(ty).iter() {
            let Ty::Class(class_name, args) = t else {
                continue;
            };
            if &**class_name == OBJECT {
                continue;
            }
            let Some(entry) = self.get(class_name) else {
                continue;
            };
            let subst = self.class_subst(&entry.sig, args);
            for (index, m) in entry.sig.methods.iter().enumerate() {
                let scopes = [m.type_params.as_slice(), entry.sig.type_params.as_slice()];
                let erased: Vec<String> = m
                    .params
                    .iter()
                    .map(|p| self.instantiate(p, &subst, &scopes).erased_name())
                    .collect();
                let key = (m.name.clone(), erased);
                if seen_signatures.contains(&key) {
                    continue;
                }
                seen_signatures.push(key);
                if m.flags & flags::ABSTRACT == 0 || m.flags & flags::STATIC != 0 {
                    continue;
                }
                if is_object_method(&m.name, m.params.len()) {
                    continue;
                }
                if found.is_some() {
                    return None;
                }
                found = Some(Found {
                    class: entry.clone(),
                    index,
                    subst: subst.clone(),
                });
            }
        }
        found
    }
}

/// Public methods of `Object` that an interface may redeclare abstractly
/// without counting as its functional method.
fn is_object_method(name: &str, arity: usize) -> bool {
    matches!(
        (name, arity),
        ("equals", 1) | ("hashCode", 0) | ("toString", 0)
    )
}
