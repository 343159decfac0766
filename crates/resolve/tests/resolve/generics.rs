//! Generic types and methods: members of instantiated types, inference of
//! method type arguments, and erased parameter types in targets.

use crate::fixture::Case;

pub const CASES: &[Case] = &[
    Case {
        name: "the members of a type instantiated with type arguments",
        source: r#"
//- p/Box.java
package p;
class Box<T> {
    T value;
    T get() { return value; }
    void put(T t) {}
}
//- p/Item.java
package p;
class Item {
    String label() { return ""; }
}
//- p/Use.java
package p;
class Use {
    void run(Box<Item> box, Item item) {
        box.get().label();
//          ^ call p.Box#get()
//                ^ call p.Item#label()
        box.value.label();
//          ^ field p.Box#value
//                ^ call p.Item#label()
        box.put(item);
//          ^ call p.Box#put(java.lang.Object)
    }
}
"#,
    },
    Case {
        name: "a generic method's type argument inferred from its arguments",
        source: r#"
//- p/Pick.java
package p;
class Pick {
    static <T> T first(T a, T b) { return a; }
    static <T extends Comparable<T>> T least(T a, T b) { return a; }
}
//- p/Use.java
package p;
class Use {
    int run(String s) {
        Pick.first(s, s).length();
//           ^ call p.Pick#first(java.lang.Object,java.lang.Object)
//                       ^ call java.lang.String#length()
        return Pick.least(s, s).length();
//                  ^ call p.Pick#least(java.lang.Comparable,java.lang.Comparable)
//                              ^ call java.lang.String#length()
    }
}
"#,
    },
    Case {
        name: "a bounded type variable's methods are its bound's",
        source: r#"
//- p/Named.java
package p;
interface Named {
    String name();
}
//- p/Registry.java
package p;
class Registry<T extends Named> {
    String nameOf(T t) {
        return t.name();
//               ^ call p.Named#name()
    }
}
"#,
    },
    Case {
        name: "inherited members seen through a generic supertype",
        source: r#"
//- p/Holder.java
package p;
class Holder<T> {
    T held;
}
//- p/Text.java
package p;
class Text extends Holder<String> {
    int size() {
        return held.length();
//             ^ field p.Holder#held
//                  ^ call java.lang.String#length()
    }
}
"#,
    },
];
