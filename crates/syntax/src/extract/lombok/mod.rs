//! Lombok: the members its annotation processor would generate, as
//! elements of the file (with [`Origin::Lombok`]), so that resolution,
//! callers and `at` see them as javac does after Lombok ran.
//!
//! Everything here reads the file alone, as the rest of extraction: an
//! annotation is Lombok's when it is written qualified (`@lombok.Data`) or
//! imported from Lombok's packages, and the members follow from the
//! annotations' arguments, the fields and the members written beside them.
//! Lombok's defaults are used throughout: `lombok.config` files are not
//! read. What this module does not model (`@SuperBuilder`, `@Delegate`,
//! `@Singular` collections, `@FieldNameConstants`, `@CustomLog`,
//! `@ExtensionMethod`, `@StandardException`) generates nothing, so the
//! references to what those would generate stay unresolved rather than
//! guessed.
//!
//! Generated members are placed where Lombok places them, which is where
//! javac reports them: at the annotation that asks for them, except that
//! the getters of a type-level `@Getter`, `@Data` or `@Value` sit at their
//! field's name, and `toBuilder()` at its `toBuilder` argument.

mod args;
mod builder;
mod members;
mod names;

use crate::facts::{
    Element, ElementKind, FileFacts, Modifiers, NO_EXPR, Note, Origin, Param, Position, Span,
};

use super::syntax::SourceText;
use args::Args;
pub(crate) use names::might_be_lombok;
use names::{Kind, Lombok};

/// An annotation the walk saw that may be Lombok's: which element's
/// annotation it is (for a field declaring several variables, the first
/// one's) and where it is.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mark {
    pub(crate) element: u32,
    pub(crate) annotation: u32,
    pub(crate) start_byte: u32,
    pub(crate) end_byte: u32,
}

/// A Lombok annotation of an element, read.
#[derive(Debug, Clone)]
struct Ann {
    kind: Kind,
    args: Args,
    start_byte: u32,
    end_byte: u32,
}

/// Adds the members Lombok generates to `facts`, and applies what its
/// annotations change in written declarations (`@Value` and
/// `@FieldDefaults` field modifiers, `@UtilityClass` statics, `val`).
pub(crate) fn expand(facts: &mut FileFacts, marks: &[Mark], src: &SourceText) {
    let (val, read) = {
        let lombok = Lombok::new(facts);
        let read = (!marks.is_empty()).then(|| {
            (
                notes(facts, marks, &lombok),
                Annotations::read(facts, marks, &lombok),
            )
        });
        (lombok.imports_val(), read)
    };
    if val {
        for local in &mut facts.locals {
            if local.type_text == "val" || local.type_text == "lombok.val" {
                local.type_text = "var".into();
                local.type_erased = "var".into();
            }
        }
    }
    let Some((notes, anns)) = read else {
        return;
    };
    facts.notes.extend(notes);
    if anns.is_empty() {
        return;
    }
    let n_written = facts.elements.len() as u32;
    let mut out = Generated {
        src,
        elements: Vec::new(),
        next_index: n_written,
    };
    for index in 0..n_written {
        let kind = facts.elements[index as usize].kind;
        let is_class = matches!(
            kind,
            ElementKind::Class | ElementKind::Enum | ElementKind::Record
        );
        if is_class
            && let Some((mut info, members)) = members::expand_type(facts, index, &anns, &mut out)
        {
            builder::builders(facts, &mut info, &members, &anns, &mut out);
        }
    }
    facts.elements.append(&mut out.elements);
}

/// What the reader of an element should know: the Lombok annotations it
/// carries that generate members refscope does not model, or that
/// refscope does not know.
fn notes(facts: &FileFacts, marks: &[Mark], lombok: &Lombok) -> Vec<Note> {
    let mut notes = Vec::new();
    for mark in marks {
        let Some(text) = facts
            .elements
            .get(mark.element as usize)
            .and_then(|e| e.annotations.get(mark.annotation as usize))
        else {
            continue;
        };
        let name = text.split('(').next().unwrap_or(text).trim_end();
        let note = match lombok.kind_of(text) {
            Some(Kind::Unmodelled) if name.ends_with("Singular") => format!(
                "{name} is not modelled: the builder has no setter for this field, and calls to those Lombok generates stay unresolved"
            ),
            Some(Kind::Unmodelled) => format!(
                "{name} is not modelled: the members Lombok generates for it are not indexed, and calls to them stay unresolved"
            ),
            None if name.starts_with("@lombok.") => format!(
                "{name} is not a Lombok annotation refscope knows: nothing is generated for it"
            ),
            _ => continue,
        };
        notes.push(Note {
            element: mark.element,
            text: note,
        });
    }
    notes
}

/// The Lombok annotations of a file's elements.
struct Annotations {
    /// By element, in the order of the element's annotations.
    by_element: Vec<(u32, Ann)>,
}

impl Annotations {
    fn read(facts: &FileFacts, marks: &[Mark], lombok: &Lombok) -> Self {
        let mut by_element = Vec::new();
        for mark in marks {
            let Some(element) = facts.elements.get(mark.element as usize) else {
                continue;
            };
            let Some(text) = element.annotations.get(mark.annotation as usize) else {
                continue;
            };
            if let Some(kind) = lombok.kind_of(text) {
                by_element.push((
                    mark.element,
                    Ann {
                        kind,
                        args: Args::parse(text),
                        start_byte: mark.start_byte,
                        end_byte: mark.end_byte,
                    },
                ));
            }
        }
        Self { by_element }
    }

    fn is_empty(&self) -> bool {
        self.by_element.is_empty()
    }

    /// The annotations of element `index`; a field declared with others
    /// (`int a, b;`) shares the first one's.
    fn of<'a>(&'a self, facts: &FileFacts, index: u32) -> impl Iterator<Item = &'a Ann> + 'a {
        let head = group_head(facts, index);
        self.by_element
            .iter()
            .filter(move |(e, _)| *e == head)
            .map(|(_, a)| a)
    }

    /// The annotation of `kind` on element `index`, if it has one.
    fn find<'a>(&'a self, facts: &FileFacts, index: u32, kind: Kind) -> Option<&'a Ann> {
        self.of(facts, index).find(|a| a.kind == kind)
    }
}

/// The first variable of the field declaration that declares element
/// `index` (itself when it is not a field).
fn group_head(facts: &FileFacts, index: u32) -> u32 {
    let elements = &facts.elements;
    let this = &elements[index as usize];
    if this.kind != ElementKind::Field {
        return index;
    }
    let mut head = index;
    while head > 0 {
        let before = &elements[head as usize - 1];
        if before.kind == ElementKind::Field
            && before.parent == this.parent
            && before.span.start_byte == this.span.start_byte
        {
            head -= 1;
        } else {
            break;
        }
    }
    head
}

/// The members generated so far, appended to the file's elements at the
/// end (each after its parent, as the elements' order requires).
struct Generated<'s, 't> {
    src: &'s SourceText<'t>,
    elements: Vec<Element>,
    next_index: u32,
}

/// Where a generated member goes.
#[derive(Debug, Clone, Copy)]
struct At {
    start_byte: u32,
    end_byte: u32,
    pos: Position,
}

impl Generated<'_, '_> {
    /// The place of an annotation.
    fn at_annotation(&self, ann: &Ann) -> At {
        At {
            start_byte: ann.start_byte,
            end_byte: ann.end_byte,
            pos: self.src.position_of(ann.start_byte),
        }
    }

    /// The place of the first occurrence of `word` inside an annotation
    /// (an argument's name), or of the annotation when it is not there.
    fn at_word_in(&self, ann: &Ann, word: &str) -> At {
        let text = &self.src.text[ann.start_byte as usize..ann.end_byte as usize];
        let found = text.match_indices(word).find(|&(i, _)| {
            let before = text[..i].chars().next_back();
            let after = text[i + word.len()..].chars().next();
            !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
        });
        match found {
            Some((i, _)) => {
                let start = ann.start_byte + i as u32;
                At {
                    start_byte: start,
                    end_byte: start + word.len() as u32,
                    pos: self.src.position_of(start),
                }
            }
            None => self.at_annotation(ann),
        }
    }

    /// The place of a field's name.
    fn at_name_of(&self, field: &Element) -> At {
        let start = self.src.byte_of(field.name_pos);
        At {
            start_byte: start,
            end_byte: start + field.name.len() as u32,
            pos: field.name_pos,
        }
    }

    /// The place of a type from its name to its end.
    fn at_from_name_of(&self, ty: &Element) -> At {
        At {
            start_byte: self.src.byte_of(ty.name_pos),
            end_byte: ty.span.end_byte,
            pos: ty.name_pos,
        }
    }

    /// Adds a member; its index.
    fn add(&mut self, member: Member, parent: u32, owner: &str, at: At) -> u32 {
        let end_line = self.src.line_of(at.end_byte.max(at.start_byte + 1) - 1);
        self.elements.push(Element {
            kind: member.kind,
            name: member.name,
            parent,
            binary_name: owner.to_string(),
            modifiers: member.modifiers,
            annotations: Vec::new(),
            type_text: member.type_text,
            type_erased: member.type_erased,
            params: member.params,
            throws: Vec::new(),
            type_params: member.type_params,
            supertypes: Vec::new(),
            span: Span {
                start_line: at.pos.line,
                end_line: end_line.max(at.pos.line),
                start_byte: at.start_byte,
                end_byte: at.end_byte,
            },
            name_pos: at.pos,
            javadoc: None,
            is_local: false,
            supertypes_written: Vec::new(),
            init: NO_EXPR,
            origin: Origin::Lombok,
        });
        let index = self.next_index;
        self.next_index += 1;
        index
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// A member to generate, before it has a place.
#[derive(Debug, Clone)]
struct Member {
    kind: ElementKind,
    name: String,
    modifiers: Modifiers,
    type_text: String,
    type_erased: String,
    params: Vec<Param>,
    type_params: Vec<crate::facts::TypeParam>,
}

impl Member {
    fn method(name: impl Into<String>, modifiers: Modifiers, returns: (&str, &str)) -> Self {
        Self {
            kind: ElementKind::Method,
            name: name.into(),
            modifiers,
            type_text: returns.0.to_string(),
            type_erased: returns.1.to_string(),
            params: Vec::new(),
            type_params: Vec::new(),
        }
    }

    fn constructor(modifiers: Modifiers, params: Vec<Param>) -> Self {
        Self {
            kind: ElementKind::Constructor,
            name: "<init>".into(),
            modifiers,
            type_text: String::new(),
            type_erased: String::new(),
            params,
            type_params: Vec::new(),
        }
    }

    fn field(name: impl Into<String>, modifiers: Modifiers, ty: (&str, &str)) -> Self {
        Self {
            kind: ElementKind::Field,
            ..Self::method(name, modifiers, ty)
        }
    }

    fn with_params(mut self, params: Vec<Param>) -> Self {
        self.params = params;
        self
    }
}

/// A parameter of `field`'s type named after it.
fn param_of(field: &Element) -> Param {
    Param {
        type_text: field.type_text.clone(),
        erased: field.type_erased.clone(),
        name: field.name.clone(),
        varargs: false,
    }
}

/// Modifiers from keywords.
fn modifiers(keywords: &[&str]) -> Modifiers {
    Modifiers(
        keywords
            .iter()
            .filter_map(|k| Modifiers::bit_of(k))
            .fold(0, |bits, bit| bits | bit),
    )
}

/// The element's direct children.
fn children(facts: &FileFacts, parent: u32) -> impl Iterator<Item = (u32, &Element)> {
    facts
        .elements
        .iter()
        .enumerate()
        .skip(parent as usize + 1)
        .filter(move |(_, e)| e.parent == parent)
        .map(|(i, e)| (i as u32, e))
}

#[cfg(test)]
mod tests;
