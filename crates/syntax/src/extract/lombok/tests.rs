use crate::extract;
use crate::facts::{ElementKind, FileFacts, Origin};

/// The generated members as `kind name(params) line:col`, in order.
fn generated(facts: &FileFacts) -> Vec<String> {
    facts
        .elements
        .iter()
        .filter(|e| e.origin == Origin::Lombok)
        .map(|e| {
            let params: Vec<&str> = e.params.iter().map(|p| p.erased.as_str()).collect();
            format!(
                "{} {}.{}({}) {}:{}",
                e.kind.as_str(),
                e.binary_name,
                e.name,
                params.join(","),
                e.name_pos.line,
                e.name_pos.col
            )
        })
        .collect()
}

fn expand(source: &str) -> FileFacts {
    let facts = extract(source.as_bytes());
    assert_eq!(facts.check(), Ok(()), "the facts keep their invariants");
    facts
}

#[test]
fn data_generates_accessors_at_their_fields_and_the_rest_at_the_annotation() {
    let facts = expand(
        "package p;\nimport lombok.*;\n@Data\nclass A {\n  private final String id;\n  boolean on, off;\n  static int n;\n  public String toString() { return id; }\n}\n",
    );
    assert_eq!(
        generated(&facts),
        [
            "method p.A.getId() 5:24",
            "method p.A.isOn() 6:11",
            "method p.A.setOn(boolean) 3:1",
            "method p.A.isOff() 6:15",
            "method p.A.setOff(boolean) 3:1",
            "constructor p.A.<init>(String) 3:1",
            "method p.A.equals(Object) 3:1",
            "method p.A.hashCode() 3:1",
            "method p.A.canEqual(Object) 3:1",
        ],
        "no setter for the final field, nothing for the static one, the written toString kept"
    );
    let getter = facts.elements.iter().find(|e| e.name == "getId").unwrap();
    assert!(getter.modifiers.has("public"));
    assert_eq!(getter.type_text, "String");
    assert_eq!(getter.parent, 0, "a member of A");
}

#[test]
fn an_annotation_of_the_same_name_from_elsewhere_generates_nothing() {
    let facts = expand(
        "package p;\nimport com.acme.Getter;\nimport lombok.*;\n@Getter\nclass A { int x; }\n",
    );
    assert!(generated(&facts).is_empty(), "{:?}", generated(&facts));
    let qualified = expand("package p;\n@lombok.Getter\nclass A { int x; }\n");
    assert_eq!(generated(&qualified), ["method p.A.getX() 3:15"]);
}

#[test]
fn what_is_not_modelled_generates_nothing_rather_than_a_guess() {
    let facts = expand(
        "package p;\nimport java.util.List;\nimport lombok.*;\n@Builder\nclass A {\n  @Singular List<String> names;\n  int size;\n}\n",
    );
    let members = generated(&facts);
    assert!(
        members.iter().any(|m| m.contains("ABuilder.size(int)")),
        "{members:?}"
    );
    assert!(
        !members
            .iter()
            .any(|m| m.contains(".names(") || m.contains(".name(")),
        "{members:?}"
    );
}

#[test]
fn fluent_chained_and_prefixed_accessors_are_named_as_lombok_names_them() {
    let facts = expand(
        "package p;\nimport lombok.Getter;\nimport lombok.Setter;\nimport lombok.experimental.Accessors;\n@Getter @Setter\n@Accessors(fluent = true, prefix = \"m\")\nclass A {\n  int mCount;\n  int plain;\n  boolean mIsOpen;\n}\n",
    );
    let members = generated(&facts);
    assert_eq!(
        members,
        [
            "method p.A.count() 8:7",
            "method p.A.count(int) 5:9",
            "method p.A.isOpen() 10:11",
            "method p.A.isOpen(boolean) 5:9",
        ],
        "`plain` has no prefix: no accessor"
    );
    let setter = facts
        .elements
        .iter()
        .find(|e| e.name == "count" && e.params.len() == 1)
        .unwrap();
    assert_eq!(setter.type_text, "A", "fluent accessors chain");
}

#[test]
fn builders_value_types_and_loggers() {
    let facts = expand(
        "package p;\nimport lombok.*;\nimport lombok.extern.slf4j.Slf4j;\n@Value @Builder(toBuilder = true) @Slf4j\nclass Box<T> {\n  T item;\n  @Builder.Default int count = 1;\n}\n",
    );
    let members = generated(&facts);
    for expected in [
        "class p.Box$BoxBuilder.BoxBuilder() 4:8",
        "method p.Box$BoxBuilder.item(T) 4:8",
        "field p.Box$BoxBuilder.count$value() 4:8",
        "field p.Box$BoxBuilder.count$set() 4:8",
        "method p.Box$BoxBuilder.count(int) 4:8",
        "method p.Box$BoxBuilder.build() 4:8",
        "method p.Box.$default$count() 4:8",
        "method p.Box.builder() 4:8",
        "method p.Box.toBuilder() 4:17",
        "method p.Box.getItem() 6:5",
        "field p.Box.log() 4:35",
        "constructor p.Box.<init>(T,int) 4:8",
    ] {
        assert!(
            members.iter().any(|m| m == expected),
            "{expected} in {members:?}"
        );
    }
    let class = &facts.elements[0];
    assert_eq!(class.name, "Box");
    assert!(class.modifiers.has("final"), "@Value makes the class final");
    let item = facts.elements.iter().find(|e| e.name == "item").unwrap();
    assert!(item.modifiers.has("private") && item.modifiers.has("final"));
    let builder = facts.elements.iter().find(|e| e.name == "builder").unwrap();
    assert_eq!(builder.type_text, "BoxBuilder<T>");
    assert_eq!(builder.type_params.len(), 1);
    let log = facts.elements.iter().find(|e| e.name == "log").unwrap();
    assert_eq!(log.type_text, "org.slf4j.Logger");
    assert!(log.modifiers.has("static"));
}

#[test]
fn lombok_val_is_inferred_like_var_when_imported() {
    let with = expand(
        "package p;\nimport lombok.val;\nclass A { void m() { val x = \"s\"; x.length(); } }\n",
    );
    assert_eq!(with.locals[0].type_text, "var");
    let without = expand("package p;\nclass A { void m() { val x = null; } }\n");
    assert_eq!(without.locals[0].type_text, "val");
}

#[test]
fn generated_members_are_part_of_what_other_files_see() {
    let plain = expand("package p;\nclass A { int x; }\n");
    let with = expand("package p;\n@lombok.Getter\nclass A { int x; }\n");
    assert_ne!(plain.signature_digest(), with.signature_digest());
    let owners: Vec<ElementKind> = with.elements.iter().map(|e| e.kind).collect();
    assert_eq!(
        owners,
        [ElementKind::Class, ElementKind::Field, ElementKind::Method]
    );
}

#[test]
fn what_is_not_modelled_or_not_known_leaves_a_note() {
    let facts = expand(
        "package p;\nimport java.util.List;\nimport lombok.*;\n@Builder\nclass A {\n  @Singular List<String> names;\n  @lombok.Frobnicate int x;\n  @lombok.experimental.Delegate Runnable r;\n  @Getter int y;\n}\n",
    );
    let notes: Vec<(String, &str)> = facts
        .notes
        .iter()
        .map(|n| {
            (
                facts.elements[n.element as usize].name.clone(),
                n.text.as_str(),
            )
        })
        .collect();
    assert_eq!(notes.len(), 3, "{notes:?}");
    assert_eq!(notes[0].0, "names");
    assert!(
        notes[0]
            .1
            .starts_with("@Singular is not modelled: the builder has no setter")
    );
    assert_eq!(notes[1].0, "x");
    assert!(
        notes[1]
            .1
            .contains("not a Lombok annotation refscope knows")
    );
    assert_eq!(notes[2].0, "r");
    assert!(
        notes[2]
            .1
            .starts_with("@lombok.experimental.Delegate is not modelled")
    );
    assert!(
        expand("package p;\n@lombok.Getter class A { int x; }\n")
            .notes
            .is_empty()
    );
}
