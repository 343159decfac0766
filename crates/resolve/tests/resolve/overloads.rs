//! Overload resolution as javac does it: applicable by subtyping first,
//! then with boxing, then with varargs; the most specific of the
//! applicable ones.

use crate::fixture::Case;

pub const CASES: &[Case] = &[
    Case {
        name: "widening before boxing, boxing before varargs",
        source: r#"
package p;
class Print {
    static void show(long n) {}
    static void show(Integer n) {}
    static void show(int... n) {}
    static void show(Object o) {}
    static void run(Integer boxed) {
        show(1);
//      ^ call p.Print#show(long)
        show(boxed);
//      ^ call p.Print#show(java.lang.Integer)
        show(1, 2);
//      ^ call p.Print#show(int[])
        show("text");
//      ^ call p.Print#show(java.lang.Object)
    }
}
"#,
    },
    Case {
        name: "the most specific of several applicable methods",
        source: r#"
//- p/Animal.java
package p;
class Animal {}
//- p/Dog.java
package p;
class Dog extends Animal {}
//- p/Vet.java
package p;
class Vet {
    void treat(Animal a) {}
    void treat(Dog d) {}
    void treat(Object o, Animal a) {}
    void treat(Animal a, Dog d) {}
    void run(Dog dog, Animal animal) {
        treat(dog);
//      ^ call p.Vet#treat(p.Dog)
        treat(animal);
//      ^ call p.Vet#treat(p.Animal)
        treat(dog, dog);
//      ^ call p.Vet#treat(p.Animal,p.Dog)
        treat(null);
//      ^ call p.Vet#treat(p.Dog)
    }
}
"#,
    },
    Case {
        name: "overloads by primitive type and by arity",
        source: r#"
package p;
class Math2 {
    static int max(int a, int b) { return a; }
    static long max(long a, long b) { return a; }
    static double max(double a, double b) { return a; }
    static int max(int a, int b, int c) { return a; }
    static void run(long l, char c) {
        max(1, 2);
//      ^ call p.Math2#max(int,int)
        max(1, l);
//      ^ call p.Math2#max(long,long)
        max(c, 2.0f);
//      ^ call p.Math2#max(double,double)
        max(1, 2, 3);
//      ^ call p.Math2#max(int,int,int)
    }
}
"#,
    },
    Case {
        name: "arguments typed from locals, fields, casts and string concatenation",
        source: r#"
package p;
class Log {
    static void write(String s) {}
    static void write(int n) {}
    static void write(Object o) {}
    int count;
    void run(Object any) {
        var text = "x";
        write(text);
//      ^ call p.Log#write(java.lang.String)
        write(count);
//      ^ call p.Log#write(int)
        write((String) any);
//      ^ call p.Log#write(java.lang.String)
        write("n=" + count);
//      ^ call p.Log#write(java.lang.String)
        write(count + 1L);
//      ^ call p.Log#write(java.lang.Object)
    }
}
"#,
    },
];
