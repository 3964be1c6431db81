//! `inspect.signature(func)` and `inspect.signature(func).bind(**kwargs)` for a plain
//! Python function, as CPython 3.11.7 runs them.
//!
//! praisonaiagents consults both around every tool call. It sanitises argument keys only
//! when `inspect.signature(func)` succeeds, and after a failed call it offers a parameter
//! hint only when `bind(**kwargs)` raises `TypeError` too (the "gate"). Neither agrees with
//! the call itself ([`Signature::bind_kwargs`]):
//!
//! * `inspect.signature` builds one `inspect.Parameter` per parameter, and `Parameter`
//!   rejects names the interpreter accepts: a name that is not an identifier, a keyword
//!   (except for a positional-only parameter), and the empty name, which fails with
//!   `IndexError` rather than `ValueError`. A comprehension-style name `.0` becomes the
//!   positional-only `implicit0`. The parameters then go into a dict by name, unchecked.
//! * `Signature._bind` reports the first missing parameter (in definition order) before
//!   any unexpected keyword, uses its own wording with names as `repr`, and rejects a
//!   positional-only name passed by keyword even when `**kwargs` would take it.

use indexmap::{IndexMap, IndexSet};

use super::pystr::PyStr;
use super::repr::repr_str;
use super::signature::{ParamKind, Signature};
use super::unicode::{is_digit, is_identifier};
use super::value::Value;

/// `keyword.kwlist` of CPython 3.11, sorted by code point for binary search.
const KEYWORDS: [&str; 35] = [
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// The exception `inspect.signature(func)` raises for a function whose parameter names
/// `inspect.Parameter` rejects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SignatureError {
    /// `ValueError` with this `str()`: a name that is not an identifier, a keyword, or an
    /// implicit `.N` name on a parameter that is not positional-or-keyword. The package
    /// catches it: no key sanitising, no parameter hint.
    ValueError(PyStr),
    /// `IndexError: string index out of range`, from `name[0]` on the empty name. The
    /// package's gate catches only `TypeError` and `ValueError`, so this one escapes it.
    IndexError,
}

/// `keyword.iskeyword(name)` for CPython 3.11 (hard keywords only: soft keywords `match`,
/// `case`, `_` are not keywords).
pub fn is_keyword(name: &PyStr) -> bool {
    name.as_str()
        .is_some_and(|name| KEYWORDS.binary_search(&name).is_ok())
}

/// Whether `inspect.signature(func)` succeeds for a function with these parameters: every
/// name is an identifier and, unless the parameter is positional-only, not a keyword (after
/// `.N` is renamed `implicitN`).
#[cfg(test)]
pub fn signature_is_valid(signature: &Signature) -> bool {
    check_signature(signature).is_ok()
}

/// What `inspect.signature(func)` raises, if anything: the first parameter, in definition
/// order, that `inspect.Parameter` rejects decides.
pub fn check_signature(signature: &Signature) -> Result<(), SignatureError> {
    signature
        .params
        .iter()
        .try_for_each(|p| parameter(&p.name, p.kind).map(drop))
}

/// `inspect.signature(func).bind(**kwargs)` for CPython 3.11.7: `Ok(())` when it binds,
/// else `str()` of the `TypeError` it raises.
///
/// This is `Signature._bind` line by line for the case of no positional arguments: its
/// first loop looks at the first parameter only, the second visits the rest in order and
/// pops each one's keyword, and the first keyword left over (in call order) is the
/// unexpected one. `kwargs` is a dict: a repeated key counts once, at its first position.
///
/// The parameters are those `inspect.signature` builds (`.0` renamed `implicit0`, a later
/// parameter of the same name replacing an earlier one in place), so the answer is only
/// meaningful when [`check_signature`] accepts them; otherwise it binds the rejected names
/// as given.
pub fn bind_kwargs(signature: &Signature, kwargs: &[(PyStr, Value)]) -> Result<(), PyStr> {
    let parameters = parameters(signature);
    let mut kwargs: IndexSet<&PyStr> = kwargs.iter().map(|(key, _)| key).collect();
    let mut rest = parameters.iter();
    let first = match rest.next() {
        Some(first) => first_parameter(first, &kwargs)?,
        None => None,
    };
    let mut has_var_keyword = false;
    for (name, p) in first.into_iter().chain(rest) {
        match p.kind {
            ParamKind::VarKeyword => has_var_keyword = true,
            ParamKind::VarPositional => {}
            kind => match kwargs.shift_remove(name) {
                false if !p.has_default => return Err(missing(name)),
                true if kind == ParamKind::PositionalOnly => return Err(positional_only(name)),
                _ => {}
            },
        }
    }
    match kwargs.first() {
        Some(key) if !has_var_keyword => {
            Err(message("got an unexpected keyword argument ", key, ""))
        }
        _ => Ok(()),
    }
}

/// One `inspect.Parameter` as `_bind` consults it.
#[derive(Clone, Copy)]
struct Parameter {
    kind: ParamKind,
    has_default: bool,
}

/// `inspect.signature(func).parameters`: each parameter as `Parameter` makes it (one it
/// rejects kept as given), in a dict by name, so a renamed `.0` and a later `implicit0`
/// share the first one's position and the last one's kind.
fn parameters(signature: &Signature) -> IndexMap<PyStr, Parameter> {
    let mut parameters = IndexMap::with_capacity(signature.params.len());
    for p in &signature.params {
        let (name, kind) = parameter(&p.name, p.kind).unwrap_or_else(|_| (p.name.clone(), p.kind));
        let has_default = p.default.is_some();
        parameters.insert(name, Parameter { kind, has_default });
    }
    parameters
}

/// `Parameter(name, kind)`'s checks of the name, in its order: `name[0]`, the rename of an
/// implicit `.N` to a positional-only `implicitN`, then keyword and identifier.
fn parameter(name: &PyStr, kind: ParamKind) -> Result<(PyStr, ParamKind), SignatureError> {
    let Some((&first, rest)) = name.as_bytes().split_first() else {
        return Err(SignatureError::IndexError);
    };
    let rest = PyStr::from_generalized_utf8(rest);
    let implicit = first == b'.' && !rest.is_empty() && rest.code_points().all(is_digit);
    let (name, kind) = match (implicit, kind) {
        (false, _) => (name.clone(), kind),
        (true, ParamKind::PositionalOrKeyword) => {
            let mut renamed = PyStr::from("implicit");
            renamed.push_py(&rest);
            (renamed, ParamKind::PositionalOnly)
        }
        (true, _) => {
            let mut text = PyStr::from(
                "implicit arguments must be passed as positional or keyword arguments, not ",
            );
            text.push_str(description(kind));
            return Err(SignatureError::ValueError(text));
        }
    };
    let keyword = is_keyword(&name) && kind != ParamKind::PositionalOnly;
    if keyword || !is_identifier(&name) {
        let text = message("", &name, " is not a valid parameter name");
        return Err(SignatureError::ValueError(text));
    }
    Ok((name, kind))
}

/// `_bind`'s first loop with no positional argument left: it decides on the first
/// parameter alone, and hands it to the second loop unless it is `*args`.
fn first_parameter<'p>(
    first: (&'p PyStr, &'p Parameter),
    kwargs: &IndexSet<&PyStr>,
) -> Result<Option<(&'p PyStr, &'p Parameter)>, PyStr> {
    let (name, p) = first;
    match p.kind {
        ParamKind::VarPositional => Ok(None),
        ParamKind::PositionalOnly if kwargs.contains(name) => Err(positional_only(name)),
        _ if kwargs.contains(name) => Ok(Some(first)),
        ParamKind::VarKeyword => Ok(Some(first)),
        _ if p.has_default => Ok(Some(first)),
        _ => Err(missing(name)),
    }
}

/// `missing a required argument: {name!r}`.
fn missing(name: &PyStr) -> PyStr {
    message("missing a required argument: ", name, "")
}

/// `{name!r} parameter is positional only, but was passed as a keyword`.
fn positional_only(name: &PyStr) -> PyStr {
    message(
        "",
        name,
        " parameter is positional only, but was passed as a keyword",
    )
}

/// `before + repr(name) + after`, as `inspect` words its errors.
fn message(before: &str, name: &PyStr, after: &str) -> PyStr {
    let mut out = PyStr::from(before);
    out.push_py(&repr_str(name));
    out.push_str(after);
    out
}

/// `Parameter.kind.description`, as `inspect` prints a kind.
fn description(kind: ParamKind) -> &'static str {
    match kind {
        ParamKind::PositionalOnly => "positional-only",
        ParamKind::PositionalOrKeyword => "positional or keyword",
        ParamKind::VarPositional => "variadic positional",
        ParamKind::KeywordOnly => "keyword-only",
        ParamKind::VarKeyword => "variadic keyword",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::py::json::{DecodeLimits, loads};
    use crate::py::signature::Param;

    /// A `PyStr` from code points, for names with lone surrogates.
    fn py(cps: &[u32]) -> PyStr {
        let mut s = PyStr::new();
        cps.iter().for_each(|&c| s.push(c));
        s
    }

    /// A parameter from its dataset letter: `P` positional-only, `O` positional-or-keyword,
    /// `V` `*args`, `K` keyword-only, `W` `**kwargs`; lowercase when it has a default.
    fn param(name: PyStr, letter: char) -> Param {
        let kind = match letter.to_ascii_uppercase() {
            'P' => ParamKind::PositionalOnly,
            'O' => ParamKind::PositionalOrKeyword,
            'V' => ParamKind::VarPositional,
            'K' => ParamKind::KeywordOnly,
            'W' => ParamKind::VarKeyword,
            other => panic!("unknown kind {other:?}"),
        };
        let default = letter.is_ascii_lowercase().then(|| Value::int(0));
        Param {
            name,
            kind,
            default,
        }
    }

    /// Parameters as `(name, letter)` pairs.
    type Params<'a> = &'a [(&'a str, char)];

    /// `def f(...)` from `(name, letter)` pairs.
    fn sig(params: Params) -> Signature {
        let params = params
            .iter()
            .map(|&(name, letter)| param(PyStr::from(name), letter))
            .collect();
        Signature::new(PyStr::from("f"), params).expect("a signature def can make")
    }

    fn kwargs(keys: &[PyStr]) -> Vec<(PyStr, Value)> {
        (keys.iter().zip(0..))
            .map(|(k, i)| (k.clone(), Value::int(i)))
            .collect()
    }

    /// `inspect.signature(f).bind(**kwargs)` as `"OK"` or the `TypeError` text.
    fn bind(s: &Signature, keys: &[&str]) -> String {
        let keys: Vec<PyStr> = keys.iter().map(|&k| PyStr::from(k)).collect();
        match bind_kwargs(s, &kwargs(&keys)) {
            Ok(()) => "OK".to_owned(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    #[rustfmt::skip]
    fn keywords_are_cpython_311_hard_keywords() {
        assert!(KEYWORDS.is_sorted());
        for k in KEYWORDS {
            assert!(is_keyword(&PyStr::from(k)), "{k}");
        }
        // `keyword.iskeyword` is False for all of these under CPython 3.11.7.
        let not_keywords = [
            "match", "case", "_", "type", "print", "exec", "For", "NONE", "none",
            "__peg_parser__", "", "\u{FF46}\u{FF4F}\u{FF52}", "for ",
        ];
        for k in not_keywords {
            assert!(!is_keyword(&PyStr::from(k)), "{k:?}");
        }
        assert!(!is_keyword(&py(&[0x66, 0x6F, 0x72, 0xD800])));
    }

    /// Every expectation was printed by CPython 3.11.7 for `inspect.signature(f)` of a
    /// function built with these parameter names (`scripts/gen_inspect_testdata.py`'s
    /// `make_function`).
    #[test]
    #[rustfmt::skip]
    fn signature_rejects_what_inspect_parameter_rejects() {
        let value_error = |text: &str| Err(SignatureError::ValueError(PyStr::from(text)));
        let implicit = "implicit arguments must be passed as positional or keyword arguments, not ";
        let cases: &[(Params, Result<(), SignatureError>)] = &[
            (&[("a", 'O')], Ok(())),
            (&[("", 'O')], Err(SignatureError::IndexError)),
            (&[(".0", 'O')], Ok(())),
            (&[(".12", 'O')], Ok(())),
            (&[(".\u{1369}", 'O')], Ok(())),
            (&[(".0", 'P')], value_error(&format!("{implicit}positional-only"))),
            (&[(".0", 'V')], value_error(&format!("{implicit}variadic positional"))),
            (&[(".0", 'K')], value_error(&format!("{implicit}keyword-only"))),
            (&[(".0", 'W')], value_error(&format!("{implicit}variadic keyword"))),
            // Keywords pass as positional-only parameters only.
            (&[("for", 'P')], Ok(())),
            (&[("for", 'O')], value_error("'for' is not a valid parameter name")),
            (&[("None", 'K')], value_error("'None' is not a valid parameter name")),
            (&[("async", 'V')], value_error("'async' is not a valid parameter name")),
            (&[(".\u{B2}", 'O')], value_error("'implicit\u{B2}' is not a valid parameter name")),
            (&[(".", 'O')], value_error("'.' is not a valid parameter name")),
            (&[("a", 'O'), (".a", 'O')], value_error("'.a' is not a valid parameter name")),
            (&[("it's", 'O')], value_error("\"it's\" is not a valid parameter name")),
            (&[("\u{B7}a", 'O')], value_error("'\u{B7}a' is not a valid parameter name")),
            (&[("\u{2122}", 'O')], value_error("'\u{2122}' is not a valid parameter name")),
            (&[("a\u{B7}", 'O')], Ok(())),
            (&[("\u{FF46}\u{FF4F}\u{FF52}", 'O')], Ok(())),
            (&[("match", 'O'), ("case", 'K'), ("_", 'W')], Ok(())),
            // The first rejected parameter decides the exception.
            (&[("for", 'O'), ("", 'O')], value_error("'for' is not a valid parameter name")),
            (&[("", 'O'), ("for", 'O')], Err(SignatureError::IndexError)),
            (&[(".0", 'P'), ("", 'O')], value_error(&format!("{implicit}positional-only"))),
        ];
        for (params, want) in cases {
            let s = sig(params);
            assert_eq!(&check_signature(&s), want, "{params:?}");
            assert_eq!(signature_is_valid(&s), want.is_ok(), "{params:?}");
        }
        let surrogate = Signature::new(
            PyStr::from("f"),
            vec![param(py(&[0x78, 0xD800]), 'O')],
        )
        .expect("valid");
        assert_eq!(
            check_signature(&surrogate),
            value_error("'x\\ud800' is not a valid parameter name")
        );
    }

    /// Every branch of `Signature._bind` reachable without positional arguments; each
    /// expectation was printed by CPython 3.11.7 (the call's own outcome in the comments).
    #[test]
    fn bind_follows_signature_bind() {
        // Missing parameters come first, in definition order, even before an unexpected key
        // (the call: `f() got an unexpected keyword argument 'q'`).
        let query = sig(&[("query", 'O')]);
        assert_eq!(bind(&query, &[]), "missing a required argument: 'query'");
        assert_eq!(bind(&query, &["q"]), "missing a required argument: 'query'");
        let ab = sig(&[("a", 'O'), ("b", 'O')]);
        assert_eq!(bind(&ab, &["a"]), "missing a required argument: 'b'");
        assert_eq!(bind(&ab, &["q"]), "missing a required argument: 'a'");
        // Keyword-only parameters get the same wording, after `*args` too.
        let kwonly = sig(&[("a", 'o'), ("key", 'K')]);
        assert_eq!(bind(&kwonly, &["a"]), "missing a required argument: 'key'");
        let after_args = sig(&[("args", 'V'), ("key", 'K')]);
        assert_eq!(bind(&after_args, &[]), "missing a required argument: 'key'");
        // The unexpected key is the first left over, in call order.
        assert_eq!(
            bind(&sig(&[("a", 'O')]), &["a", "q", "r"]),
            "got an unexpected keyword argument 'q'"
        );
        assert_eq!(
            bind(&sig(&[("a", 'O'), ("b", 'o')]), &["z", "a", "y"]),
            "got an unexpected keyword argument 'z'"
        );
        assert_eq!(
            bind(&sig(&[("a", 'p')]), &["zz"]),
            "got an unexpected keyword argument 'zz'"
        );
        assert_eq!(
            bind(&sig(&[]), &["a"]),
            "got an unexpected keyword argument 'a'"
        );
        assert_eq!(bind(&sig(&[]), &[]), "OK");
    }

    #[test]
    fn bind_rejects_positional_only_names_even_with_var_keyword() {
        let first = "'a' parameter is positional only, but was passed as a keyword";
        let second = "'b' parameter is positional only, but was passed as a keyword";
        // The call: `f() got some positional-only arguments passed as keyword arguments: 'a'`.
        assert_eq!(bind(&sig(&[("a", 'P'), ("b", 'O')]), &["b", "a"]), first);
        // The call: `f() missing 1 required positional argument: 'a'`.
        assert_eq!(bind(&sig(&[("a", 'P'), ("kw", 'W')]), &["a"]), first);
        // The call binds these: `a` and `b` go into `**kw`.
        assert_eq!(bind(&sig(&[("a", 'p'), ("kw", 'W')]), &["a"]), first);
        let two = sig(&[("a", 'p'), ("b", 'p'), ("kw", 'W')]);
        assert_eq!(bind(&two, &["b"]), second);
        assert_eq!(bind(&sig(&[("a", 'p'), ("b", 'p')]), &["b"]), second);
        assert_eq!(
            bind(&sig(&[("a", 'P')]), &[]),
            "missing a required argument: 'a'"
        );
        assert_eq!(
            bind(&sig(&[("for", 'P')]), &["for"]),
            "'for' parameter is positional only, but was passed as a keyword"
        );
    }

    #[test]
    fn bind_accepts_defaults_and_variadics() {
        assert_eq!(bind(&sig(&[("a", 'o'), ("b", 'o'), ("k", 'k')]), &[]), "OK");
        assert_eq!(bind(&sig(&[("args", 'V'), ("k", 'k')]), &["k"]), "OK");
        // `*args` takes no keyword; `**kwargs` takes any left over, its own name included.
        assert_eq!(
            bind(&sig(&[("a", 'o'), ("args", 'V')]), &["args"]),
            "got an unexpected keyword argument 'args'"
        );
        let both = sig(&[("args", 'V'), ("kwargs", 'W')]);
        assert_eq!(bind(&both, &["args", "kwargs"]), "OK");
        let absorbing = sig(&[("a", 'O'), ("kw", 'W')]);
        assert_eq!(bind(&absorbing, &["zz", "a", "yy"]), "OK");
        assert_eq!(bind(&sig(&[("kw", 'W')]), &["kw", "x"]), "OK");
    }

    /// `inspect` prints names with `repr`, where the call prints them as `'%S'`
    /// (`f() got an unexpected keyword argument 'it's'`).
    #[test]
    fn bind_quotes_names_with_repr() {
        let a = sig(&[("a", 'o')]);
        let unexpected = |key: PyStr| bind_kwargs(&a, &kwargs(&[key])).unwrap_err();
        let cases = [
            ("it's", r#"got an unexpected keyword argument "it's""#),
            (
                "say \"hi\"",
                r#"got an unexpected keyword argument 'say "hi"'"#,
            ),
            ("tab\t", r"got an unexpected keyword argument 'tab\t'"),
            ("", "got an unexpected keyword argument ''"),
        ];
        for (key, want) in cases {
            assert_eq!(unexpected(PyStr::from(key)), want, "{key:?}");
        }
        assert_eq!(
            unexpected(py(&[0x78, 0xD800])),
            r"got an unexpected keyword argument 'x\ud800'"
        );
        assert_eq!(
            bind(&sig(&[("\u{E9}t\u{E9}", 'O')]), &[]),
            "missing a required argument: '\u{E9}t\u{E9}'"
        );
    }

    /// `inspect` renames `.0` to the positional-only `implicit0`, and keeps one parameter
    /// per name; the call knows neither (its outcome in the comments).
    #[test]
    fn bind_sees_inspects_parameters() {
        let implicit = sig(&[(".0", 'O')]);
        // The call: OK.
        assert_eq!(
            bind(&implicit, &[".0"]),
            "missing a required argument: 'implicit0'"
        );
        // The call: `f() got an unexpected keyword argument 'implicit0'`.
        assert_eq!(
            bind(&implicit, &["implicit0"]),
            "'implicit0' parameter is positional only, but was passed as a keyword"
        );
        // The call, for all three: `f() missing 1 required positional argument: '.0'`.
        assert_eq!(
            bind(&sig(&[(".0", 'O'), ("implicit0", 'O')]), &["implicit0"]),
            "OK"
        );
        assert_eq!(
            bind(&sig(&[("implicit0", 'O'), (".0", 'O')]), &["implicit0"]),
            "'implicit0' parameter is positional only, but was passed as a keyword"
        );
        assert_eq!(
            bind(&sig(&[("a", 'O'), (".0", 'O')]), &["a"]),
            "missing a required argument: 'implicit0'"
        );
    }

    #[test]
    fn repeated_keys_count_once() {
        let a = sig(&[("a", 'O')]);
        let keys = [PyStr::from("a"), PyStr::from("q"), PyStr::from("a")];
        assert_eq!(
            bind_kwargs(&a, &kwargs(&keys)).unwrap_err(),
            "got an unexpected keyword argument 'q'"
        );
        let keys = [PyStr::from("a"), PyStr::from("a")];
        assert_eq!(bind_kwargs(&a, &kwargs(&keys)), Ok(()));
    }

    /// Rows recorded by `scripts/gen_inspect_testdata.py` under CPython 3.11.7.
    const CPYTHON_ROWS: &str = include_str!("testdata/inspect-cpython-3.11.jsonl");

    const READ: DecodeLimits = DecodeLimits {
        max_depth: 8,
        int_max_str_digits: None,
    };

    fn list(v: &Value) -> &[Value] {
        match v {
            Value::List(items) => items,
            other => panic!("expected a list, got {other:?}"),
        }
    }

    fn string(v: &Value) -> PyStr {
        v.as_py_str().expect("a string").clone()
    }

    /// `"OK"` or the error text, as the dataset records an outcome.
    fn outcome<T>(result: Result<T, PyStr>) -> PyStr {
        result.map_or_else(|e| e, |_| PyStr::from("OK"))
    }

    fn signature_outcome(s: &Signature) -> Value {
        match check_signature(s) {
            Ok(()) => Value::None,
            Err(SignatureError::ValueError(text)) => {
                Value::List(vec![Value::str("ValueError"), Value::Str(text)])
            }
            Err(SignatureError::IndexError) => Value::List(vec![
                Value::str("IndexError"),
                Value::str("string index out of range"),
            ]),
        }
    }

    /// Replays every row: `inspect.signature` against [`check_signature`], `bind` against
    /// [`bind_kwargs`], and the call against the interpreter's binder in `py::signature`.
    #[test]
    fn replays_cpython_dataset() {
        let mut rows = 0;
        for (line_no, line) in CPYTHON_ROWS.lines().enumerate() {
            let at = format!("line {}", line_no + 1);
            let row = loads(line.as_bytes(), READ).expect(&at);
            let [qualname, params, keys, signature, bound, called] = list(&row) else {
                panic!("{at}: wrong arity");
            };
            let params = list(params)
                .iter()
                .map(|p| match list(p) {
                    [name, kind] => {
                        let letter = kind.as_py_str().and_then(PyStr::as_str).expect(&at);
                        param(string(name), letter.chars().next().expect(&at))
                    }
                    _ => panic!("{at}: parameter"),
                })
                .collect();
            let s = Signature::new(string(qualname), params).expect(&at);
            let keys: Vec<PyStr> = list(keys).iter().map(string).collect();
            let kwargs = kwargs(&keys);
            assert_eq!(&signature_outcome(&s), signature, "{at}: signature");
            if let Some(bound) = bound.as_py_str() {
                assert_eq!(&outcome(bind_kwargs(&s, &kwargs)), bound, "{at}: bind");
            }
            assert_eq!(
                outcome(s.bind_kwargs(&kwargs)),
                string(called),
                "{at}: call"
            );
            rows += 1;
        }
        assert!(rows >= 1600, "dataset too small: {rows}");
    }
}
