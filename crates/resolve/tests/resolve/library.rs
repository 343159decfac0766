//! Library members (the stub JDK's): calls on JDK types, their generic
//! signatures carried through calls, and the declaring type as target.

use crate::fixture::Case;

pub const CASES: &[Case] = &[
    Case {
        name: "String, StringBuilder and Math",
        source: r#"
package p;
class Text {
    String run(String s) {
        int n = Math.max(s.length(), 3);
//                   ^ call java.lang.Math#max(int,int)
//                         ^ call java.lang.String#length()
        return new StringBuilder().append(s).append(n).toString();
//                 ^ new java.lang.StringBuilder#<init>()
//                                 ^ call java.lang.StringBuilder#append(java.lang.String)
//                                           ^ call java.lang.StringBuilder#append(int)
//                                                     ^ call java.lang.StringBuilder#toString()
    }
}
"#,
    },
    Case {
        name: "collections: the declaring interface is the target",
        source: r#"
package p;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
class Stock {
    int run(Map<String, List<String>> byName) {
        List<String> names = new ArrayList<>();
//                               ^ new java.util.ArrayList#<init>()
        names.add("tea");
//            ^ call java.util.List#add(java.lang.Object)
        for (Map.Entry<String, List<String>> e : byName.entrySet()) {
//                                                      ^ call java.util.Map#entrySet()
            names.addAll(e.getValue());
//                         ^ call java.util.Map$Entry#getValue()
        }
        return names.get(0).length();
//                   ^ call java.util.List#get(int)
//                          ^ call java.lang.String#length()
    }
}
"#,
    },
    Case {
        name: "Optional and streams carry their type arguments",
        source: r#"
package p;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
class Names {
    String first(Optional<String> name, List<String> all) {
        all.stream().map(s -> s.trim()).collect(Collectors.toList());
//                              ^ call java.lang.String#trim()
        return name.map(String::trim).orElse("none");
//                  ^ call java.util.Optional#map(java.util.function.Function)
//                              ^ method_ref java.lang.String#trim()
//                                    ^ call java.util.Optional#orElse(java.lang.Object)
    }
}
"#,
    },
];
