//! A revision's Spring beans, as `spring.rs` reads them and the
//! revision's cache keeps them.

/// Every bean of a revision.
#[derive(Debug, Default)]
pub struct Beans {
    pub(super) beans: Vec<Bean>,
}

/// One bean.
#[derive(Debug)]
pub(super) struct Bean {
    /// The element id of its class or `@Bean` method.
    pub(super) id: String,
    /// Its class (binary name), as far as it is known.
    pub(super) class: String,
    /// Its name: the stereotype's or `@Bean`'s, else the class's simple
    /// name lowered (`stripePaymentService`) or the method's name.
    pub(super) name: String,
    pub(super) qualifiers: Vec<String>,
    pub(super) primary: bool,
}
