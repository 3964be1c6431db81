//! Calling a Python function: how CPython 3.11 binds arguments to parameters, and the exact
//! `TypeError` text when it cannot.
//!
//! A tool is called as `func(**kwargs)` (a bound method as `func(instance, **kwargs)`), and a
//! failed bind is not caught by `inspect`: the `TypeError` comes from the interpreter's own
//! `initialize_locals` (`Python/ceval.c`), and its `str()` becomes the error the model reads.
//! Its wording is CPython's, down to the quoting: an unexpected keyword is quoted with plain
//! `'%S'` (no escaping), missing names with their `repr`, and the positional-only names
//! joined inside one pair of quotes. This module reproduces that function step for step:
//! positional arguments first, then keywords in call order (the first bad keyword raises
//! before anything is found missing), then the count of positionals, then missing
//! positional-or-keyword parameters, then missing keyword-only ones.

use super::exception::PyException;
use super::pystr::PyStr;
use super::repr::repr_str;
use super::value::{Dict, Value};

/// `inspect.Parameter.kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ParamKind {
    /// Before `/`.
    PositionalOnly,
    /// An ordinary parameter.
    PositionalOrKeyword,
    /// `*args`.
    VarPositional,
    /// After `*` or `*args`.
    KeywordOnly,
    /// `**kwargs`.
    VarKeyword,
}

impl ParamKind {
    /// The kind as `inspect` describes it in its messages.
    fn description(self) -> &'static str {
        match self {
            ParamKind::PositionalOnly => "positional-only",
            ParamKind::PositionalOrKeyword => "positional or keyword",
            ParamKind::VarPositional => "variadic positional",
            ParamKind::KeywordOnly => "keyword-only",
            ParamKind::VarKeyword => "variadic keyword",
        }
    }

    /// Whether an argument can fill it by position.
    fn is_positional(self) -> bool {
        matches!(
            self,
            ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword
        )
    }

    /// Whether an argument can fill it by name.
    fn is_named(self) -> bool {
        matches!(
            self,
            ParamKind::PositionalOrKeyword | ParamKind::KeywordOnly
        )
    }
}

/// One parameter of a `def`.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The name, any `str` (a code object can carry names that are not identifiers).
    pub name: PyStr,
    /// How arguments reach it.
    pub kind: ParamKind,
    /// The default value; `None` means the parameter is required.
    pub default: Option<Value>,
}

impl Param {
    /// A required positional-or-keyword parameter: `def f(name)`.
    pub fn required(name: impl Into<PyStr>) -> Param {
        Param {
            name: name.into(),
            kind: ParamKind::PositionalOrKeyword,
            default: None,
        }
    }

    /// An optional positional-or-keyword parameter: `def f(name=default)`.
    pub fn optional(name: impl Into<PyStr>, default: Value) -> Param {
        Param {
            default: Some(default),
            ..Param::required(name)
        }
    }

    /// The same parameter of another kind: `Param::required("k").kind(ParamKind::KeywordOnly)`
    /// is `def f(*, k)`.
    pub fn kind(self, kind: ParamKind) -> Param {
        Param { kind, ..self }
    }
}

/// A Python function's parameters, and the `__qualname__` its `TypeError`s start with.
#[derive(Clone, Debug, PartialEq)]
pub struct Signature {
    /// `func.__qualname__`: `web_search`, `outer.<locals>.inner`, `Class.run`.
    pub(crate) qualname: PyStr,
    /// The parameters in definition order.
    pub(crate) params: Vec<Param>,
}

impl Signature {
    /// A signature that Python's `def` could have produced: kinds in order, at most one
    /// `*args` and one `**kwargs`, neither with a default, no required positional parameter
    /// after one with a default, unique names. The error texts are those of `def` (a
    /// `SyntaxError`) or, where `def` cannot even express the mistake, of `inspect.Signature`.
    pub fn new(qualname: PyStr, params: Vec<Param>) -> Result<Signature, PyException> {
        check_order(&params)?;
        check_defaults(&params)?;
        check_unique(&params)?;
        Ok(Signature { qualname, params })
    }

    /// `func.__qualname__`, which the `TypeError`s of a failed call start with.
    pub fn qualname(&self) -> &PyStr {
        &self.qualname
    }

    /// The parameters in definition order.
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// The call `func(**kwargs)`: see [`bind`](Self::bind).
    pub fn bind_kwargs(&self, kwargs: &[(PyStr, Value)]) -> Result<Vec<(PyStr, Value)>, PyStr> {
        self.bind(&[], kwargs)
    }

    /// The call `func(*positional, **kwargs)`, keywords in the order given (a dict's order).
    ///
    /// On success: every parameter in definition order with its value, defaults applied,
    /// `*args` as a `Value::List` of the surplus positionals and `**kwargs` as a `Value::Dict`
    /// of the leftover keywords in call order. On failure: `str()` of the `TypeError` CPython
    /// 3.11.7 raises.
    ///
    /// A repeated key is not possible in a dict; if `kwargs` repeats one anyway, it is handled
    /// as CPython handles a repeated name in a vectorcall: `got multiple values for argument`
    /// for a named parameter, last value wins (first position kept) inside `**kwargs`.
    pub fn bind(
        &self,
        positional: &[Value],
        kwargs: &[(PyStr, Value)],
    ) -> Result<Vec<(PyStr, Value)>, PyStr> {
        let mut frame = Frame::new(self);
        frame.take_positional(positional);
        for (key, value) in kwargs {
            frame.take_keyword(key, value, kwargs)?;
        }
        frame.check_positional_count(positional.len())?;
        frame.fill_defaults(ParamKind::is_positional, "positional")?;
        frame.fill_defaults(|kind| kind == ParamKind::KeywordOnly, "keyword-only")?;
        Ok(frame.into_bound())
    }

    /// `co_argcount`: the parameters that can take a positional argument.
    fn positional_count(&self) -> usize {
        self.params
            .iter()
            .filter(|p| p.kind.is_positional())
            .count()
    }

    /// `func.__defaults__` length: positional parameters with a default.
    fn positional_default_count(&self) -> usize {
        self.params
            .iter()
            .filter(|p| p.kind.is_positional() && p.default.is_some())
            .count()
    }

    fn has(&self, kind: ParamKind) -> bool {
        self.params.iter().any(|p| p.kind == kind)
    }

    /// The start of every message: `qualname()`.
    fn prefix(&self) -> PyStr {
        let mut out = self.qualname.clone();
        out.push_str("()");
        out
    }
}

/// Kinds must not decrease, and `*args` / `**kwargs` may each appear once.
fn check_order(params: &[Param]) -> Result<(), PyException> {
    for pair in params.windows(2) {
        let (before, after) = (pair[0].kind, pair[1].kind);
        if before > after {
            return Err(value_error(format!(
                "wrong parameter order: {} parameter before {} parameter",
                before.description(),
                after.description()
            )));
        }
        if before == after && before == ParamKind::VarPositional {
            return Err(syntax_error("* argument may appear only once"));
        }
        if before == after && before == ParamKind::VarKeyword {
            return Err(syntax_error("arguments cannot follow var-keyword argument"));
        }
    }
    Ok(())
}

/// Positional defaults form a suffix; variadic parameters take none.
fn check_defaults(params: &[Param]) -> Result<(), PyException> {
    let mut seen_default = false;
    for p in params {
        match p.kind {
            ParamKind::VarPositional | ParamKind::VarKeyword if p.default.is_some() => {
                return Err(value_error(format!(
                    "{} parameters cannot have default values",
                    p.kind.description()
                )));
            }
            kind if kind.is_positional() => {
                if seen_default && p.default.is_none() {
                    return Err(syntax_error(
                        "non-default argument follows default argument",
                    ));
                }
                seen_default |= p.default.is_some();
            }
            _ => {}
        }
    }
    Ok(())
}

fn check_unique(params: &[Param]) -> Result<(), PyException> {
    for (at, p) in params.iter().enumerate() {
        if params[..at].iter().any(|q| q.name == p.name) {
            let mut message = PyStr::from("duplicate argument '");
            message.push_py(&p.name);
            message.push_str("' in function definition");
            return Err(syntax_error(message));
        }
    }
    Ok(())
}

/// What `inspect.Signature` raises for parameters `def` itself would reject differently.
fn value_error(message: impl Into<PyStr>) -> PyException {
    PyException::ValueError {
        message: message.into(),
    }
}

/// What compiling the `def` raises.
fn syntax_error(message: impl Into<PyStr>) -> PyException {
    PyException::SyntaxError {
        message: message.into(),
    }
}

/// The locals being initialised: one slot per parameter, `None` until an argument or a
/// default fills it.
struct Frame<'s> {
    sig: &'s Signature,
    slots: Vec<Option<Value>>,
    var_positional: Vec<Value>,
    var_keyword: Dict,
}

impl<'s> Frame<'s> {
    fn new(sig: &'s Signature) -> Frame<'s> {
        Frame {
            sig,
            slots: vec![None; sig.params.len()],
            var_positional: Vec::new(),
            var_keyword: Dict::default(),
        }
    }

    /// Copies positionals into the positional parameters, the surplus into `*args` (if any).
    fn take_positional(&mut self, positional: &[Value]) {
        let mut args = positional.iter();
        for (slot, p) in self.slots.iter_mut().zip(&self.sig.params) {
            if p.kind.is_positional() {
                match args.next() {
                    Some(value) => *slot = Some(value.clone()),
                    None => break,
                }
            }
        }
        if self.sig.has(ParamKind::VarPositional) {
            self.var_positional = args.cloned().collect();
        }
    }

    /// One keyword: into its named parameter, else into `**kwargs`, else the `TypeError`.
    fn take_keyword(
        &mut self,
        key: &PyStr,
        value: &Value,
        all: &[(PyStr, Value)],
    ) -> Result<(), PyStr> {
        let sig = self.sig;
        let found = sig
            .params
            .iter()
            .position(|p| p.kind.is_named() && p.name == *key);
        if let Some(at) = found {
            if self.slots[at].is_some() {
                return Err(self.message("got multiple values for argument '", key));
            }
            self.slots[at] = Some(value.clone());
            return Ok(());
        }
        if sig.has(ParamKind::VarKeyword) {
            self.var_keyword.insert(key.clone(), value.clone());
            return Ok(());
        }
        if let Some(names) = positional_only_passed_as_keyword(sig, all) {
            return Err(self.message(
                "got some positional-only arguments passed as keyword arguments: '",
                &names,
            ));
        }
        Err(self.message("got an unexpected keyword argument '", key))
    }

    /// `qualname() <text><name>'`.
    fn message(&self, text: &str, name: &PyStr) -> PyStr {
        let mut out = self.sig.prefix();
        out.push(u32::from(' '));
        out.push_str(text);
        out.push_py(name);
        out.push(u32::from('\''));
        out
    }

    /// `too_many_positional`: surplus positionals without `*args`.
    fn check_positional_count(&self, given: usize) -> Result<(), PyStr> {
        let sig = self.sig;
        let argcount = sig.positional_count();
        if given <= argcount || sig.has(ParamKind::VarPositional) {
            return Ok(());
        }
        let kwonly_given = (sig.params.iter().zip(&self.slots))
            .filter(|(p, slot)| p.kind == ParamKind::KeywordOnly && slot.is_some())
            .count();
        let defcount = sig.positional_default_count();
        let (takes, plural) = if defcount > 0 {
            (format!("from {} to {argcount}", argcount - defcount), true)
        } else {
            (argcount.to_string(), argcount != 1)
        };
        let kwonly = if kwonly_given > 0 {
            format!(
                " positional argument{} (and {kwonly_given} keyword-only argument{})",
                plural_s(given),
                plural_s(kwonly_given)
            )
        } else {
            String::new()
        };
        let verb = if given == 1 && kwonly_given == 0 {
            "was"
        } else {
            "were"
        };
        let mut out = sig.prefix();
        out.push_str(&format!(
            " takes {takes} positional argument{} but {given}{kwonly} {verb} given",
            if plural { "s" } else { "" }
        ));
        Err(out)
    }

    /// Fills the empty slots of the selected kinds from their defaults, or raises
    /// `missing_arguments` naming every still-empty required one.
    fn fill_defaults(&mut self, selected: fn(ParamKind) -> bool, kind: &str) -> Result<(), PyStr> {
        let params = &self.sig.params;
        let missing: Vec<PyStr> = (params.iter().zip(&self.slots))
            .filter(|(p, slot)| selected(p.kind) && slot.is_none() && p.default.is_none())
            .map(|(p, _)| repr_str(&p.name))
            .collect();
        if !missing.is_empty() {
            return Err(self.missing_message(kind, &missing));
        }
        for (p, slot) in params.iter().zip(&mut self.slots) {
            if selected(p.kind) && slot.is_none() {
                *slot = p.default.clone();
            }
        }
        Ok(())
    }

    /// `format_missing`: `'a'`, `'a' and 'b'`, `'a', 'b', and 'c'`.
    fn missing_message(&self, kind: &str, names: &[PyStr]) -> PyStr {
        let mut out = self.sig.prefix();
        out.push_str(&format!(
            " missing {} required {kind} argument{}: ",
            names.len(),
            plural_s(names.len())
        ));
        match names {
            [one] => out.push_py(one),
            [first, second] => {
                out.push_py(first);
                out.push_str(" and ");
                out.push_py(second);
            }
            [init @ .., second_last, last] => {
                for name in init {
                    out.push_py(name);
                    out.push_str(", ");
                }
                out.push_py(second_last);
                out.push_str(", and ");
                out.push_py(last);
            }
            [] => {}
        }
        out
    }

    /// Every parameter with its value, in definition order.
    fn into_bound(self) -> Vec<(PyStr, Value)> {
        let mut var_positional = Some(Value::List(self.var_positional));
        let mut var_keyword = Some(Value::Dict(self.var_keyword));
        (self.sig.params.iter().zip(self.slots))
            .map(|(p, slot)| {
                let value = match p.kind {
                    ParamKind::VarPositional => var_positional.take(),
                    ParamKind::VarKeyword => var_keyword.take(),
                    _ => slot,
                };
                (p.name.clone(), value.unwrap_or(Value::None))
            })
            .collect()
    }
}

/// `positional_only_passed_as_keyword`: the keywords (all of them, not only those seen so
/// far) that name a positional-only parameter, in parameter order and then keyword order,
/// joined by `", "`; `None` when there are none.
fn positional_only_passed_as_keyword(sig: &Signature, kwargs: &[(PyStr, Value)]) -> Option<PyStr> {
    let mut names: Vec<&PyStr> = Vec::new();
    for p in sig
        .params
        .iter()
        .filter(|p| p.kind == ParamKind::PositionalOnly)
    {
        names.extend(kwargs.iter().map(|(k, _)| k).filter(|k| **k == p.name));
    }
    let (first, rest) = names.split_first()?;
    let mut joined = (*first).clone();
    for name in rest {
        joined.push_str(", ");
        joined.push_py(name);
    }
    Some(joined)
}

fn plural_s(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(name: &str, kind: ParamKind, default: Option<i64>) -> Param {
        Param {
            name: PyStr::from(name),
            kind,
            default: default.map(Value::int),
        }
    }

    fn req(name: &str) -> Param {
        param(name, ParamKind::PositionalOrKeyword, None)
    }

    fn sig(qualname: &str, params: Vec<Param>) -> Signature {
        Signature::new(PyStr::from(qualname), params).expect("valid signature")
    }

    fn kwargs(names: &[&str]) -> Vec<(PyStr, Value)> {
        (names.iter().zip(1..))
            .map(|(&n, i)| (PyStr::from(n), Value::int(i)))
            .collect()
    }

    /// `str(TypeError)` of `f(**kwargs)`, or `"OK"`.
    fn err(s: &Signature, names: &[&str]) -> String {
        match s.bind_kwargs(&kwargs(names)) {
            Ok(_) => "OK".to_owned(),
            Err(e) => e.to_string(),
        }
    }

    /// Every expected string below was printed by CPython 3.11.7 for the same call.
    #[test]
    fn missing_positional_wording() {
        let web = sig("web_search", vec![req("query")]);
        assert_eq!(
            err(&web, &[]),
            "web_search() missing 1 required positional argument: 'query'"
        );
        let f3 = sig("f3", vec![req("a"), req("b"), req("c")]);
        assert_eq!(
            err(&f3, &[]),
            "f3() missing 3 required positional arguments: 'a', 'b', and 'c'"
        );
        assert_eq!(
            err(&f3, &["b"]),
            "f3() missing 2 required positional arguments: 'a' and 'c'"
        );
        let nested = sig("outer.<locals>.inner", vec![req("a")]);
        assert_eq!(
            err(&nested, &[]),
            "outer.<locals>.inner() missing 1 required positional argument: 'a'"
        );
    }

    #[test]
    fn missing_keyword_only_wording() {
        let kwo = sig("kwo", vec![param("key", ParamKind::KeywordOnly, None)]);
        assert_eq!(
            err(&kwo, &[]),
            "kwo() missing 1 required keyword-only argument: 'key'"
        );
        let ko = |n: &str, d| param(n, ParamKind::KeywordOnly, d);
        let kwo3 = sig(
            "kwo3",
            vec![
                ko("x", None),
                ko("y", None),
                ko("z", Some(1)),
                ko("w", None),
            ],
        );
        assert_eq!(
            err(&kwo3, &[]),
            "kwo3() missing 3 required keyword-only arguments: 'x', 'y', and 'w'"
        );
        assert_eq!(
            err(&kwo3, &["x"]),
            "kwo3() missing 2 required keyword-only arguments: 'y' and 'w'"
        );
        // Positional parameters are reported first.
        let m = sig("m", vec![req("a"), ko("k", None)]);
        assert_eq!(
            err(&m, &[]),
            "m() missing 1 required positional argument: 'a'"
        );
    }

    #[test]
    fn unexpected_keyword_comes_first_and_is_not_escaped() {
        let f3 = sig("f3", vec![req("a"), req("b"), req("c")]);
        assert_eq!(
            err(&f3, &["q"]),
            "f3() got an unexpected keyword argument 'q'"
        );
        assert_eq!(
            err(&f3, &["a", "q", "r"]),
            "f3() got an unexpected keyword argument 'q'"
        );
        let weird = sig("we'ird.<locals>.q", vec![]);
        assert_eq!(
            err(&weird, &["x'y"]),
            "we'ird.<locals>.q() got an unexpected keyword argument 'x'y'"
        );
        assert_eq!(
            err(&weird, &["x\ty"]),
            "we'ird.<locals>.q() got an unexpected keyword argument 'x\ty'"
        );
    }

    #[test]
    fn missing_names_are_reprs() {
        let names = ["it's", "a\"b", "c\\d", "tab\t"];
        let s = sig("we'ird.<locals>.q", names.iter().map(|&n| req(n)).collect());
        assert_eq!(
            err(&s, &[]),
            r#"we'ird.<locals>.q() missing 4 required positional arguments: "it's", 'a"b', 'c\\d', and 'tab\t'"#
        );
    }

    #[test]
    fn positional_only_passed_by_name() {
        let po = |n: &str| param(n, ParamKind::PositionalOnly, None);
        let posonly = sig("posonly", vec![po("a"), req("b")]);
        let expected =
            "posonly() got some positional-only arguments passed as keyword arguments: 'a'";
        assert_eq!(err(&posonly, &["a"]), expected);
        assert_eq!(err(&posonly, &["b", "a"]), expected);
        // Raised at the first unexpected keyword, naming later keywords too.
        assert_eq!(err(&posonly, &["b", "q", "a"]), expected);
        let ko = param("d", ParamKind::KeywordOnly, None);
        let posonly2 = sig("posonly2", vec![po("a"), po("c"), req("b"), ko]);
        let expected =
            "posonly2() got some positional-only arguments passed as keyword arguments: 'a, c'";
        assert_eq!(err(&posonly2, &["c", "a", "b", "d"]), expected);
        assert_eq!(
            err(&posonly2, &["b", "d"]),
            "posonly2() missing 2 required positional arguments: 'a' and 'c'"
        );
        // With **kwargs the name is just another keyword.
        let var_kw = param("kw", ParamKind::VarKeyword, None);
        let withkw = sig(
            "withkw",
            vec![param("a", ParamKind::PositionalOnly, Some(1)), var_kw],
        );
        let bound = withkw.bind_kwargs(&kwargs(&["a"])).expect("binds");
        let mut leftovers = Dict::default();
        leftovers.insert(PyStr::from("a"), Value::int(1));
        assert_eq!(
            bound,
            [
                (PyStr::from("a"), Value::int(1)),
                (PyStr::from("kw"), Value::Dict(leftovers))
            ]
        );
    }

    #[test]
    fn binds_defaults_and_variadics_in_parameter_order() {
        let s = sig(
            "va",
            vec![
                req("a"),
                param("b", ParamKind::PositionalOrKeyword, Some(2)),
                param("args", ParamKind::VarPositional, None),
                param("c", ParamKind::KeywordOnly, Some(3)),
                param("kw", ParamKind::VarKeyword, None),
            ],
        );
        let bound = s.bind_kwargs(&kwargs(&["zz", "a", "args"])).expect("binds");
        let mut rest = Dict::default();
        rest.insert(PyStr::from("zz"), Value::int(1));
        rest.insert(PyStr::from("args"), Value::int(3));
        let expected = [
            ("a", Value::int(2)),
            ("b", Value::int(2)),
            ("args", Value::List(vec![])),
            ("c", Value::int(3)),
            ("kw", Value::Dict(rest)),
        ];
        let expected: Vec<_> = expected
            .into_iter()
            .map(|(n, v)| (PyStr::from(n), v))
            .collect();
        assert_eq!(bound, expected);
    }

    #[test]
    fn bound_methods_and_too_many_positionals() {
        let run = sig("C.run", vec![req("self"), req("query")]);
        let instance = [Value::Opaque(PyStr::from("<C object>"))];
        let call = |names: &[&str]| match run.bind(&instance, &kwargs(names)) {
            Ok(_) => "OK".to_owned(),
            Err(e) => e.to_string(),
        };
        assert_eq!(
            call(&[]),
            "C.run() missing 1 required positional argument: 'query'"
        );
        assert_eq!(
            call(&["self"]),
            "C.run() got multiple values for argument 'self'"
        );
        assert_eq!(call(&["query"]), "OK");
        let two = sig("f", vec![req("a"), req("b")]);
        let three = [Value::int(1), Value::int(2), Value::int(3)];
        assert_eq!(
            two.bind(&three, &[]).unwrap_err(),
            "f() takes 2 positional arguments but 3 were given"
        );
        // Keywords are checked before the positional count.
        assert_eq!(
            two.bind(&three, &kwargs(&["b"])).unwrap_err(),
            "f() got multiple values for argument 'b'"
        );
        let ranged = sig(
            "g",
            vec![
                req("a"),
                param("b", ParamKind::PositionalOrKeyword, Some(1)),
                param("k", ParamKind::KeywordOnly, None),
            ],
        );
        assert_eq!(
            ranged.bind(&three, &kwargs(&["k"])).unwrap_err(),
            "g() takes from 1 to 2 positional arguments but 3 positional arguments (and 1 keyword-only argument) were given"
        );
        let none = sig("h", vec![]);
        assert_eq!(
            none.bind(&three[..1], &[]).unwrap_err(),
            "h() takes 0 positional arguments but 1 was given"
        );
    }

    #[test]
    fn new_rejects_what_def_rejects() {
        let new = |params| Signature::new(PyStr::from("f"), params).map_err(|e| e.to_string());
        let new = |params| new(params).map(|_| ());
        let with_default = param("a", ParamKind::PositionalOrKeyword, Some(1));
        assert_eq!(
            new(vec![with_default.clone(), req("b")]),
            Err("SyntaxError: non-default argument follows default argument".to_owned())
        );
        assert_eq!(
            new(vec![
                param("a", ParamKind::PositionalOnly, Some(1)),
                req("b")
            ]),
            Err("SyntaxError: non-default argument follows default argument".to_owned())
        );
        assert_eq!(
            new(vec![req("a"), param("a", ParamKind::KeywordOnly, None)]),
            Err("SyntaxError: duplicate argument 'a' in function definition".to_owned())
        );
        assert_eq!(
            new(vec![param("k", ParamKind::KeywordOnly, None), req("b")]),
            Err("ValueError: wrong parameter order: keyword-only parameter before positional or keyword parameter".to_owned())
        );
        let star = |n: &str| param(n, ParamKind::VarPositional, None);
        assert_eq!(
            new(vec![star("a"), star("b")]),
            Err("SyntaxError: * argument may appear only once".to_owned())
        );
        let star_star = |n: &str| param(n, ParamKind::VarKeyword, None);
        assert_eq!(
            new(vec![star_star("a"), star_star("b")]),
            Err("SyntaxError: arguments cannot follow var-keyword argument".to_owned())
        );
        assert_eq!(
            new(vec![param("a", ParamKind::VarPositional, Some(1))]),
            Err("ValueError: variadic positional parameters cannot have default values".to_owned())
        );
        // Keyword-only parameters may be required after optional ones.
        let ko = |n: &str, d| param(n, ParamKind::KeywordOnly, d);
        assert_eq!(
            new(vec![with_default, ko("x", Some(1)), ko("y", None)]),
            Ok(())
        );
    }
}
