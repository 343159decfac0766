//! Lambdas and method references: parameters typed from the functional
//! interface they implement, overloads told apart by it.

use crate::fixture::Case;

pub const CASES: &[Case] = &[
    Case {
        name: "a lambda's parameters take the types of its target's method",
        source: r#"
//- p/Order.java
package p;
class Order {
    int total() { return 0; }
}
//- p/Use.java
package p;
import java.util.function.Function;
import java.util.function.Predicate;
class Use {
    void run() {
        Function<Order, Integer> total = order -> order.total();
//                                                      ^ call p.Order#total()
        Predicate<Order> big = o -> o.total() > 10;
//                                    ^ call p.Order#total()
    }
}
"#,
    },
    Case {
        name: "a lambda passed to a method of the source",
        source: r#"
//- p/Each.java
package p;
interface Each<T> {
    void accept(T t);
}
//- p/Shelf.java
package p;
class Shelf {
    String title() { return ""; }
    static void forAll(Each<Shelf> each) {}
    static void run() {
        forAll(shelf -> shelf.title());
//      ^ call p.Shelf#forAll(p.Each)
//                            ^ call p.Shelf#title()
    }
}
"#,
    },
    Case {
        name: "method references, static, bound, unbound and to constructors",
        source: r#"
//- p/Util.java
package p;
class Util {
    static int twice(int n) { return 2 * n; }
    int plus(int n) { return n; }
    String show() { return ""; }
}
//- p/Use.java
package p;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;
import java.util.function.Supplier;
class Use {
    void run(Util util) {
        IntUnaryOperator a = Util::twice;
//                                 ^ method_ref p.Util#twice(int)
        IntUnaryOperator b = util::plus;
//                                 ^ method_ref p.Util#plus(int)
        Function<Util, String> c = Util::show;
//                                       ^ method_ref p.Util#show()
        Supplier<Util> d = Util::new;
//                               ^ method_ref p.Util#<init>()
    }
}
"#,
    },
    Case {
        name: "a method reference to an overloaded method, told apart by its target",
        source: r#"
//- p/Print.java
package p;
class Print {
    static void out(String s) {}
    static void out(int n) {}
}
//- p/Use.java
package p;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
class Use {
    void run() {
        Consumer<String> text = Print::out;
//                                     ^ method_ref p.Print#out(java.lang.String)
        IntConsumer number = Print::out;
//                                  ^ method_ref p.Print#out(int)
    }
}
"#,
    },
];
