//! The type of an expression: receivers, arguments, locals, lambda
//! parameters and the declared types of the context a lambda or method
//! reference is written in.

use super::conversions::{binary_promote, binary_type, box_if_primitive, promote, unbox};
use super::{Context, Denoted, FileResolver, MAX_DEPTH, unwrap_parens};
use crate::sig::parse_type;
use crate::ty::{STRING, Subst, Ty, TyArgs};
use refscope_symbols::{ClassKind, Prim, TypeSig};
use refscope_syntax::facts::{ExprKind, NO_ELEMENT, NO_EXPR, RefKind, RefSite};

impl FileResolver<'_> {
    pub(super) fn receiver(&mut self, site: &RefSite) -> Receiver {
        let context = site.enclosing;
        let e = site.receiver_expr;
        if e == NO_EXPR {
            return match site.receiver {
                refscope_syntax::facts::ExprShape::Implicit => Receiver::Implicit,
                _ => Receiver::None,
            };
        }
        let expr = &self.facts.exprs[e as usize];
        match expr.kind {
            ExprKind::Super => {
                let Some(&this) = self.enclosing_types(context).first() else {
                    return Receiver::None;
                };
                match self.scope.supertypes_split(&self.this_type(this)).0 {
                    Some(t) => Receiver::Value(t),
                    None => Receiver::Value(self.scope.object()),
                }
            }
            ExprKind::QualifiedSuper => {
                let Some(key) = self.q.resolve_type_name(context, &expr.text) else {
                    return Receiver::None;
                };
                let ty = self.type_ty(&key);
                let is_interface = self
                    .scope
                    .get(&key)
                    .is_some_and(|e| e.sig.kind == ClassKind::Interface);
                if is_interface {
                    Receiver::Value(ty)
                } else {
                    match self.scope.supertypes_split(&ty).0 {
                        Some(t) => Receiver::Value(t),
                        None => Receiver::None,
                    }
                }
            }
            ExprKind::Site => {
                let sub = expr.a;
                let sub_kind = self.facts.ref_sites[sub as usize].kind;
                if matches!(sub_kind, RefKind::Name | RefKind::FieldAccess) {
                    match self.site(sub).denoted {
                        Denoted::Value(t) => Receiver::Value(t),
                        Denoted::Type(key) => Receiver::Static(self.type_ty(&key)),
                        Denoted::Package(_) => Receiver::None,
                    }
                } else {
                    Receiver::Value(self.type_of(e, context))
                }
            }
            _ => Receiver::Value(self.type_of(e, context)),
        }
    }

    /// The type of an argument: lambdas and method references stay
    /// markers until the method is chosen.
    pub(super) fn arg_type(&mut self, e: u32, context: u32) -> Ty {
        let inner = unwrap_parens(self.facts, e);
        if inner == NO_EXPR {
            return Ty::Unknown;
        }
        let expr = &self.facts.exprs[inner as usize];
        match expr.kind {
            ExprKind::Lambda if expr.a != NO_ELEMENT => {
                let arity = self.facts.elements[expr.a as usize].params.len() as u32;
                Ty::Lambda(expr.a, arity)
            }
            ExprKind::Site if self.facts.ref_sites[expr.a as usize].kind == RefKind::MethodRef => {
                Ty::MethodRef(expr.a)
            }
            _ => self.type_of(inner, context),
        }
    }

    /// The type of an expression evaluated inside element `context`.
    pub(super) fn type_of(&mut self, e: u32, context: u32) -> Ty {
        if e == NO_EXPR {
            return Ty::Unknown;
        }
        if let Some(t) = &self.expr_types[e as usize] {
            return t.clone();
        }
        if self.depth > MAX_DEPTH {
            return Ty::Unknown;
        }
        self.depth += 1;
        let ty = self.compute_type(e, context);
        self.depth -= 1;
        self.expr_types[e as usize] = Some(ty.clone());
        ty
    }

    pub(super) fn compute_type(&mut self, e: u32, context: u32) -> Ty {
        let facts = self.facts;
        let expr = &facts.exprs[e as usize];
        match expr.kind {
            ExprKind::Local => self.local_type(expr.a),
            ExprKind::Site => match self.site(expr.a).denoted {
                Denoted::Value(t) => t,
                _ => Ty::Unknown,
            },
            ExprKind::This => match self.enclosing_types(context).first() {
                Some(&t) => self.this_type(t),
                None => Ty::Unknown,
            },
            ExprKind::Super => match self.enclosing_types(context).first() {
                Some(&t) => self
                    .scope
                    .supertypes_split(&self.this_type(t))
                    .0
                    .unwrap_or(Ty::Unknown),
                None => Ty::Unknown,
            },
            ExprKind::QualifiedThis => match self.q.resolve_type_name(context, &expr.text) {
                Some(key) => self.type_ty(&key),
                None => Ty::Unknown,
            },
            ExprKind::QualifiedSuper => Ty::Unknown,
            ExprKind::StringLit => Ty::class(STRING),
            ExprKind::CharLit => Ty::Prim(Prim::Char),
            ExprKind::IntLit => Ty::Prim(Prim::Int),
            ExprKind::LongLit => Ty::Prim(Prim::Long),
            ExprKind::FloatLit => Ty::Prim(Prim::Float),
            ExprKind::DoubleLit => Ty::Prim(Prim::Double),
            ExprKind::BoolLit => Ty::Prim(Prim::Boolean),
            ExprKind::NullLit => Ty::Null,
            ExprKind::ClassLit => {
                let sig = parse_type(self.q, context, &expr.text);
                let arg = box_if_primitive(&self.context_type(context, &sig));
                Ty::Class("java.lang.Class".into(), TyArgs::from([arg]))
            }
            ExprKind::Cast | ExprKind::NewArray => {
                let text = expr.text.split(['&', '|']).next().unwrap_or("").trim();
                let sig = parse_type(self.q, context, text);
                self.context_type(context, &sig)
            }
            ExprKind::ArrayAccess => match self.type_of(expr.a, context) {
                Ty::Array(inner) => (*inner).clone(),
                _ => Ty::Unknown,
            },
            ExprKind::Conditional => {
                let a = self.type_of(expr.a, context);
                let b = self.type_of(expr.b, context);
                self.conditional_type(a, b)
            }
            ExprKind::Paren => self.type_of(expr.a, context),
            ExprKind::Binary => {
                let op = expr.text.as_str();
                match op {
                    "==" | "!=" | "<" | ">" | "<=" | ">=" | "&&" | "||" => Ty::Prim(Prim::Boolean),
                    _ => {
                        let a = self.type_of(expr.a, context);
                        let b = self.type_of(expr.b, context);
                        binary_type(op, &a, &b)
                    }
                }
            }
            ExprKind::Unary => {
                let a = self.type_of(expr.a, context);
                match expr.text.as_str() {
                    "!" => Ty::Prim(Prim::Boolean),
                    "++" | "--" => a,
                    _ => match unbox(&a) {
                        Some(p) => Ty::Prim(promote(p)),
                        None => Ty::Unknown,
                    },
                }
            }
            ExprKind::Assign => self.type_of(expr.a, context),
            ExprKind::InstanceOf => Ty::Prim(Prim::Boolean),
            ExprKind::Lambda | ExprKind::ArrayInit | ExprKind::Switch | ExprKind::Other => {
                Ty::Unknown
            }
        }
    }

    pub(super) fn conditional_type(&self, a: Ty, b: Ty) -> Ty {
        if a == b {
            return a;
        }
        match (&a, &b) {
            (Ty::Null, other) | (other, Ty::Null) => box_if_primitive(other),
            (Ty::Unknown, _) | (_, Ty::Unknown) => Ty::Unknown,
            _ => match (unbox(&a), unbox(&b)) {
                (Some(x), Some(y)) if x != Prim::Boolean && y != Prim::Boolean => {
                    Ty::Prim(binary_promote(x, y))
                }
                (Some(Prim::Boolean), Some(Prim::Boolean)) => Ty::Prim(Prim::Boolean),
                _ => match (&a, &b) {
                    (Ty::Class(x, _), Ty::Class(y, _)) if self.is_subclass(x, y) => b,
                    (Ty::Class(x, _), Ty::Class(y, _)) if self.is_subclass(y, x) => a,
                    _ => Ty::Unknown,
                },
            },
        }
    }

    pub(super) fn local_type(&mut self, local: u32) -> Ty {
        if let Some(t) = &self.local_types[local as usize] {
            return t.clone();
        }
        // Guard against a cycle through the initializer.
        self.local_types[local as usize] = Some(Ty::Unknown);
        let ty = self.compute_local_type(local);
        self.local_types[local as usize] = Some(ty.clone());
        ty
    }

    pub(super) fn compute_local_type(&mut self, local: u32) -> Ty {
        let facts = self.facts;
        let var = &facts.locals[local as usize];
        if var.type_text.is_empty() {
            // A lambda parameter without a declared type.
            let lambda = var.enclosing;
            if lambda == NO_ELEMENT {
                return Ty::Unknown;
            }
            let position = facts.elements[lambda as usize]
                .params
                .iter()
                .position(|p| p.name == var.name);
            return match position {
                Some(i) => self.lambda_param_type(lambda, i),
                None => Ty::Unknown,
            };
        }
        if var.type_text == "var" {
            if var.init == NO_EXPR {
                return Ty::Unknown;
            }
            let init = self.type_of(var.init, var.enclosing);
            return if var.foreach {
                self.element_type(&init)
            } else {
                init
            };
        }
        self.local_declared_type(local)
    }

    pub(super) fn local_declared_type(&self, local: u32) -> Ty {
        let var = &self.facts.locals[local as usize];
        let text = var.type_text.split('|').next().unwrap_or("").trim();
        let sig = parse_type(self.q, var.enclosing, text);
        self.context_type(var.enclosing, &sig)
    }

    /// The declared type of a field, or the return type of a method.
    pub(super) fn field_declared_type(&self, field: u32) -> Ty {
        let element = &self.facts.elements[field as usize];
        let sig = parse_type(self.q, field, &element.type_text);
        self.context_type(field, &sig)
    }

    /// The element type of an array or `Iterable`.
    pub(super) fn element_type(&self, ty: &Ty) -> Ty {
        match ty {
            Ty::Array(inner) => (**inner).clone(),
            Ty::Class(..) => match self.scope.as_super(ty, "java.lang.Iterable") {
                Some(Ty::Class(_, args)) if args.len() == 1 => args[0].clone(),
                _ => Ty::Unknown,
            },
            _ => Ty::Unknown,
        }
    }

    pub(super) fn lambda_param_type(&mut self, lambda: u32, i: usize) -> Ty {
        if let Some(params) = self.lambda_params.get(&lambda) {
            return params.get(i).cloned().unwrap_or(Ty::Unknown);
        }
        let target = match self.contexts.get(&(true, lambda)).copied() {
            Some(Context::Arg(call)) => {
                self.site(call);
                return self
                    .lambda_params
                    .get(&lambda)
                    .and_then(|p| p.get(i).cloned())
                    .unwrap_or(Ty::Unknown);
            }
            Some(Context::Local(local)) => self.local_declared_type(local),
            Some(Context::Field(field)) | Some(Context::Return(field)) => {
                self.field_declared_type(field)
            }
            None => return Ty::Unknown,
        };
        let Some(sam) = self.scope.functional_method(&target) else {
            return Ty::Unknown;
        };
        let m = sam.method();
        let scopes = [
            m.type_params.as_slice(),
            sam.class.sig.type_params.as_slice(),
        ];
        let params: Vec<Ty> = m
            .params
            .iter()
            .map(|p| self.scope.instantiate(p, &sam.subst, &scopes))
            .collect();
        let ty = params.get(i).cloned().unwrap_or(Ty::Unknown);
        self.lambda_params.insert(lambda, params);
        ty
    }

    /// A type written in element `context`: type variables in scope
    /// become the erasure of their bounds.
    pub(super) fn context_type(&self, context: u32, sig: &TypeSig) -> Ty {
        let mut subst = Subst::default();
        self.bind_type_variables(context, sig, &mut subst, 0);
        self.scope.instantiate(sig, &subst, &[])
    }

    pub(super) fn bind_type_variables(
        &self,
        context: u32,
        sig: &TypeSig,
        subst: &mut Subst,
        depth: u32,
    ) {
        match sig {
            TypeSig::Var(name) => {
                if subst.get(name).is_some() || depth > 8 {
                    return;
                }
                let bound = match self.q.type_variable(context, name) {
                    Some((declaring, Some(bound))) => {
                        let bound_sig = parse_type(self.q, declaring, bound);
                        // Bounds naming the variable itself (`T extends
                        // Comparable<T>`) are erased raw.
                        match bound_sig {
                            TypeSig::Class { name, .. } => Ty::Class(name, TyArgs::NONE),
                            _ => self.scope.object(),
                        }
                    }
                    _ => self.scope.object(),
                };
                subst.bind(name.clone(), bound);
            }
            TypeSig::Class { args, .. } => {
                for a in args {
                    match a {
                        refscope_symbols::TypeArg::Type(t)
                        | refscope_symbols::TypeArg::Extends(t)
                        | refscope_symbols::TypeArg::Super(t) => {
                            self.bind_type_variables(context, t, subst, depth + 1)
                        }
                        refscope_symbols::TypeArg::Any => {}
                    }
                }
            }
            TypeSig::Array(inner) => self.bind_type_variables(context, inner, subst, depth + 1),
            _ => {}
        }
    }
}

/// A call's receiver, classified.
pub(super) enum Receiver {
    /// No receiver: an unqualified call or name.
    Implicit,
    /// An instance of this type.
    Value(Ty),
    /// A type name: static members.
    Static(Ty),
    /// A package, or a receiver that could not be classified.
    None,
}
