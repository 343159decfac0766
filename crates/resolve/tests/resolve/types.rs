//! Types as scopes: nested, inner, local and anonymous classes, records,
//! interfaces with default methods, names qualified through imports.

use crate::fixture::Case;

pub const CASES: &[Case] = &[
    Case {
        name: "nested and inner classes, by simple and qualified name",
        source: r#"
package p;
class Tree {
    static class Leaf {
        static Leaf of() { return new Leaf(); }
//                                    ^ new p.Tree$Leaf#<init>()
    }
    class Branch {
        Leaf leaf() { return Tree.Leaf.of(); }
//                                     ^ call p.Tree$Leaf#of()
    }
    Branch grow() { return new Branch(); }
//                             ^ new p.Tree$Branch#<init>()
}
"#,
    },
    Case {
        name: "an anonymous class implementing an interface, and its methods",
        source: r#"
//- p/Job.java
package p;
interface Job {
    void run();
}
//- p/Use.java
package p;
class Use {
    Job job() {
        Job job = new Job() {
//                    ^ new p.Job#<init>()
            public void run() { helper(); }
//                              ^ call p.Use$1#helper()
            void helper() {}
        };
        job.run();
//          ^ call p.Job#run()
        return job;
    }
}
"#,
    },
    Case {
        name: "a local class",
        source: r#"
package p;
class Use {
    int run() {
        class Counter {
            int n;
            int next() { return ++n; }
//                                ^ field p.Use$1Counter#n
        }
        return new Counter().next();
//                 ^ new p.Use$1Counter#<init>()
//                           ^ call p.Use$1Counter#next()
    }
}
"#,
    },
    Case {
        name: "records: canonical constructors and accessors",
        source: r#"
package p;
record Point(int x, int y) {
    static Point origin() { return new Point(0, 0); }
//                                     ^ new p.Point#<init>(int,int)
    int sum() { return x() + y; }
//                     ^ call p.Point#x()
//                           ^ field p.Point#y
}
"#,
    },
    Case {
        name: "a class of another package through a single-type import and a wildcard",
        source: r#"
//- a/Tool.java
package a;
public class Tool {
    public static void use() {}
}
//- b/Gear.java
package b;
public class Gear {
    public static void turn() {}
}
//- c/Use.java
package c;
import a.Tool;
import b.*;
class Use {
    void run() {
        Tool.use();
//           ^ call a.Tool#use()
        Gear.turn();
//           ^ call b.Gear#turn()
    }
}
"#,
    },
];
