//! Fields and names: declared, inherited, static, of enclosing classes,
//! enum constants, and names that shadow them.

use crate::fixture::Case;

pub const CASES: &[Case] = &[
    Case {
        name: "declared, inherited and static fields",
        source: r#"
//- p/Base.java
package p;
class Base {
    int size;
    static final int LIMIT = 10;
}
//- p/Sub.java
package p;
class Sub extends Base {
    int extra;
    int sum(Sub other) {
        return size + extra + other.size + Base.LIMIT + LIMIT;
//             ^ field p.Base#size
//                    ^ field p.Sub#extra
//                                  ^ field p.Base#size
//                                              ^ field p.Base#LIMIT
//                                                      ^ field p.Base#LIMIT
    }
}
"#,
    },
    Case {
        name: "a local or a parameter shadows a field",
        source: r#"
package p;
class Counter {
    int count;
    void set(int count) {
        this.count = count;
//           ^ field p.Counter#count
    }
    int next() {
        return count + 1;
//             ^ field p.Counter#count
    }
}
"#,
    },
    Case {
        name: "enum constants, in switch labels too",
        source: r#"
//- p/Color.java
package p;
enum Color {
    RED, GREEN;
    static Color parse(String s) { return RED; }
//                                        ^ field p.Color#RED
}
//- p/Use.java
package p;
class Use {
    int code(Color c) {
        switch (c) {
            case GREEN:
//               ^ field p.Color#GREEN
                return 1;
            default:
                return Color.RED.ordinal();
//                           ^ field p.Color#RED
//                               ^ call java.lang.Enum#ordinal()
        }
    }
}
"#,
    },
    Case {
        name: "fields of enclosing classes from nested and anonymous classes",
        source: r#"
package p;
class Outer {
    int shared;
    static int global;
    static class Nested {
        int read() { return global; }
//                          ^ field p.Outer#global
    }
    Runnable task() {
        return new Runnable() {
            public void run() {
                shared++;
//              ^ field p.Outer#shared
            }
        };
    }
}
"#,
    },
];
