//! Method calls: receivers of every shape, inherited and overridden
//! methods, `super`, static imports, calls on the results of calls.

use crate::fixture::Case;

pub const CASES: &[Case] = &[
    Case {
        name: "unqualified, this-qualified and static calls",
        source: r#"
package p;
class A {
    void run() {
        step();
//      ^ call p.A#step()
        this.step();
//           ^ call p.A#step()
        A.helper(1);
//        ^ call p.A#helper(int)
    }
    void step() {}
    static void helper(int n) {}
}
"#,
    },
    Case {
        name: "an inherited method is the superclass's, an overriding one the subclass's",
        source: r#"
//- p/Base.java
package p;
class Base {
    void inherited() {}
    void overridden() {}
}
//- p/Sub.java
package p;
class Sub extends Base {
    @Override
    void overridden() {}
//       ^ overrides p.Base#overridden()
    void use(Sub sub, Base base) {
        sub.inherited();
//          ^ call p.Base#inherited()
        sub.overridden();
//          ^ call p.Sub#overridden()
        base.overridden();
//           ^ call p.Base#overridden()
        super.overridden();
//            ^ call p.Base#overridden()
    }
}
"#,
    },
    Case {
        name: "a call through an interface is the interface's method",
        source: r#"
//- p/Shape.java
package p;
interface Shape {
    double area();
    default String describe() { return "shape"; }
}
//- p/Square.java
package p;
class Square implements Shape {
    public double area() { return 1; }
//                ^ overrides p.Shape#area()
    static double total(Shape shape, Square square) {
        shape.describe();
//            ^ call p.Shape#describe()
        square.describe();
//             ^ call p.Shape#describe()
        return shape.area() + square.area();
//                   ^ call p.Shape#area()
//                                   ^ call p.Square#area()
    }
}
"#,
    },
    Case {
        name: "static imports, single and on demand",
        source: r#"
//- p/util/Text.java
package p.util;
public class Text {
    public static String trim(String s) { return s; }
    public static int width(String s) { return 0; }
}
//- p/Use.java
package p;
import static p.util.Text.trim;
import static p.util.Text.*;
class Use {
    int run(String s) {
        trim(s);
//      ^ call p.util.Text#trim(java.lang.String)
        return width(s);
//             ^ call p.util.Text#width(java.lang.String)
    }
}
"#,
    },
    Case {
        name: "calls on the results of calls and on fields",
        source: r#"
package p;
class Node {
    Node next;
    Node next() { return next; }
    String name() { return ""; }
    String walk() {
        return next().next().name() + next.name();
//             ^ call p.Node#next()
//                    ^ call p.Node#next()
//                           ^ call p.Node#name()
//                                    ^ field p.Node#next
//                                         ^ call p.Node#name()
    }
}
"#,
    },
    Case {
        name: "a method of the enclosing class from an inner class",
        source: r#"
package p;
class Outer {
    void tick() {}
    class Inner {
        void run() {
            tick();
//          ^ call p.Outer#tick()
            Outer.this.tick();
//                     ^ call p.Outer#tick()
        }
    }
}
"#,
    },
    Case {
        name: "constructors: new, this(...) and super(...)",
        source: r#"
//- p/Base.java
package p;
class Base {
    Base(int size) {}
}
//- p/Box.java
package p;
class Box extends Base {
    Box() {
        this(1);
//      ^ ctor_call p.Box#<init>(int)
    }
    Box(int size) {
        super(size);
//      ^ ctor_call p.Base#<init>(int)
    }
    static Box make() {
        return new Box(2);
//                 ^ new p.Box#<init>(int)
    }
}
"#,
    },
    Case {
        name: "an unknown method stays unresolved",
        source: r#"
package p;
class A {
    void run(A a) {
        a.missing();
//        ^ call unresolved
    }
}
"#,
    },
];
