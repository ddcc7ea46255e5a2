//! Deeply nested input must be refused, not recursed into until the stack runs out: the page's
//! WebAssembly stack is 1 MiB, so every parser a user's text reaches is run here, in a debug
//! build (the largest frames), on a thread with half of that.

use serde_json::json;
use watchlab_apimachinery::jsonpath::JsonPath;
use watchlab_kubectl::{manifest, shell};

const SMALL_STACK: usize = 512 * 1024;

fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    let t = std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(f)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(t.join().is_ok());
}

#[test]
fn nested_yaml_and_json_manifests_are_refused() {
    on_small_stack(|| {
        for text in [
            "[".repeat(100_000),
            "{\"a\":".repeat(100_000),
            "- ".repeat(100_000),
            "a:\n".chars().cycle().take(300_000).collect::<String>(),
            format!("{}x{}", "[".repeat(5_000), "]".repeat(5_000)),
            format!("x: {}1{}", "[".repeat(5_000), "]".repeat(5_000)),
        ] {
            let _ = manifest::parse("m.yaml", &text);
        }
    });
}

#[test]
fn nested_jsonpath_templates_are_refused() {
    on_small_stack(|| {
        let doc = json!({"a": {"b": [1, 2]}});
        for text in [
            "{".repeat(100_000),
            format!("{{{}}}", "[?(@.a".repeat(20_000)),
            format!("{{.a{}}}", "[?(@.b".repeat(20_000)),
            format!("{{{}}}", "..a".repeat(50_000)),
            format!("{{range .a}}{}", "{range .b}".repeat(20_000)),
            format!("{}{}", "{range .a}".repeat(20_000), "{end}".repeat(20_000)),
            format!("{{.a{}}}", "[".repeat(50_000)),
            format!("{{.a[{}]}}", "'a',".repeat(50_000)),
            format!("{{.a[?(@.b=={})]}}", "(".repeat(50_000)),
            format!("{{{}}}", "[*]".repeat(50_000)),
        ] {
            if let Ok(p) = JsonPath::parse(&text) {
                let _ = p.execute(&doc, true);
            }
        }
    });
}

/// Found by this test: 20,000 nested `{range}` blocks overflowed the stack while being built.
#[test]
fn ranges_nest_up_to_the_bound_and_no_deeper() {
    use watchlab_apimachinery::jsonpath::MAX_RANGE_DEPTH;
    use watchlab_kubectl::output::parse_error_text;
    let nested = |n: usize| {
        format!(
            "{}{{@}}{}",
            "{range .items[*]}".repeat(n),
            "{end}".repeat(n)
        )
    };
    let doc = json!({"items": [{"items": [1]}]});
    assert!(JsonPath::parse(&nested(MAX_RANGE_DEPTH)).is_ok());
    let deep = nested(MAX_RANGE_DEPTH + 1);
    let err = JsonPath::parse(&deep).err();
    assert_eq!(
        err.as_ref().map(|e| parse_error_text(&deep, e)),
        Some(format!(
            "error: error parsing jsonpath {deep}, range nested more than {MAX_RANGE_DEPTH} deep\n"
        ))
    );
    let two = JsonPath::parse(&nested(2)).map(|p| p.execute(&doc, true));
    assert_eq!(two, Ok(Ok("1".to_string())));
}

#[test]
fn long_command_lines_are_split() {
    on_small_stack(|| {
        for text in [
            "'".repeat(100_001),
            "\"\\".repeat(50_000),
            "a | ".repeat(20_000),
            "$(".repeat(50_000),
        ] {
            let _ = shell::parse_pipeline(&text);
        }
    });
}
