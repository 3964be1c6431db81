//! One call written in one embedded dialect, as the dialect grammar allows it.
//!
//! The grammar is the dialects' patterns (`src/salvage/dialect/`): `OPEN \s* {…} \s* CLOSE`
//! for `<tool_call>`, `<function=NAME>` and the bracket tags (whose openers and closers
//! may cross), `<|python_tag|>` then `\s*` and an object, and ReAct's
//! `Action\s*:\s*NAME\s*Action\s*Input\s*:` then whitespace and an object. Every `\s*` is a
//! run of `str.isspace` characters, every tag is written in any case `re.IGNORECASE`
//! accepts, and the payload keys are `name`/`tool` and `arguments`/`parameters`.

use std::ops::Range;
use std::sync::LazyLock;

use arbitrary::Result;

use super::choice::Gen;
use super::json::{Json, JsonStyle};
use super::markers::{concat, functools_word};
use super::names::{CallName, Offered, in_name_class};
use super::text::{Casing, space};
use toolfix::py::{Dict, PyStr, Value};
use toolfix::salvage::Dialect;
use toolfix::salvage::tokens::{
    bracket, deepseek, function, gemma, glm, granite, harmony, kimi, minimax, mistral, phi4,
    python_tag, pythonic, qwen_xml, react, tool_call,
};

/// How the call is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// `<tool_call>{"name": …}</tool_call>`
    ToolCall,
    /// `<function=NAME>{…}</function>`
    Function,
    /// `[TOOL_CALL]` or `[TOOL_REQUEST]`, closed by `[/TOOL_CALL]` or `[END_TOOL_REQUEST]`.
    Bracket {
        request_open: bool,
        request_close: bool,
    },
    /// `<|python_tag|>{"name": …}`
    PythonTag,
    /// `Action: NAME` / `Action Input: {…}`
    React,
}

impl Syntax {
    /// The dialect salvage reports for it.
    pub fn dialect(self) -> Dialect {
        match self {
            Syntax::ToolCall => Dialect::ToolCall,
            Syntax::Function => Dialect::Function,
            Syntax::Bracket { .. } => Dialect::Bracket,
            Syntax::PythonTag => Dialect::PythonTag,
            Syntax::React => Dialect::React,
        }
    }

    /// Whether the name sits in a JSON payload (rather than in the tag or step).
    fn has_payload_name(self) -> bool {
        !matches!(self, Syntax::Function | Syntax::React)
    }

    /// Any syntax that can write `name`: a name outside `[a-zA-Z0-9_-]` only fits a payload
    /// in clean replies. Each dialect is equally likely where it fits.
    fn generate(g: &mut Gen<'_, '_>, name: Option<&str>) -> Result<Syntax> {
        let fits_tag = name.is_some_and(in_name_class) || g.hostile();
        let dialects = if fits_tag { 5 } else { 3 };
        Ok(match g.below(dialects)? {
            0 => Syntax::ToolCall,
            1 => Syntax::PythonTag,
            2 => Syntax::Bracket {
                request_open: g.any()?,
                request_close: g.any()?,
            },
            3 => Syntax::Function,
            _ => Syntax::React,
        })
    }
}

/// Which keys a payload uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keys {
    /// `name` and `arguments`.
    NameArguments,
    /// `tool` and `parameters`.
    ToolParameters,
    /// `name` and `parameters`.
    NameParameters,
    /// `"name": ""` then `tool` (a falsy name falls back to `tool`), and `arguments`.
    EmptyNameThenTool,
    /// `name` and no arguments key at all (the arguments are `{}`).
    NameOnly,
    /// `name`, then `parameters` and `arguments` (which wins).
    Both,
}

impl Keys {
    const ALL: [Keys; 6] = [
        Keys::NameArguments,
        Keys::ToolParameters,
        Keys::NameParameters,
        Keys::EmptyNameThenTool,
        Keys::NameOnly,
        Keys::Both,
    ];
}

/// Ways a hostile reply breaks a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Damage {
    /// Intact.
    None,
    /// The closing tag (or, for the open-ended dialects, the last `}`) is missing.
    NoCloser,
    /// The payload loses its last `n` characters.
    Cut(usize),
    /// One `}` too many after the payload.
    ExtraBrace,
}

/// One call in one dialect.
#[derive(Clone, Debug)]
pub struct CallSpec {
    pub syntax: Syntax,
    pub name: CallName,
    pub keys: Keys,
    /// The arguments (for `<function=…>` and ReAct, the whole payload).
    pub args: Json,
    /// How the opening tag (ReAct: both `Action` words and `Input`) is cased.
    pub opener: Casing,
    /// How the closing tag is cased.
    pub closer: Casing,
    /// The `\s*` runs of the pattern, in order.
    pub pads: [&'static str; 6],
    pub style: JsonStyle,
    pub damage: Damage,
    /// Word characters written right before a ReAct step, which defeat its `\b`: the step
    /// is then no call at all (`reAction: …`).
    pub glue: &'static str,
    /// The ReAct step quoted in the arguments (clean calls to made-up names only), and
    /// the offered name it calls.
    pub quoted: Option<(String, PyStr)>,
    /// A native format's token quoted in the arguments (clean calls only), and that
    /// format's dialect: data, which must change nothing (`defuse_token`).
    pub token: Option<(&'static str, Dialect)>,
}

/// Tokens of the native formats a clean call may quote in a string argument, each with
/// its dialect. Reasoning tokens are not among them: reasoning is found on the text as
/// written, so `<think>` in an argument masks the rest of the reply by design. None is a
/// whole call, so a cut that removes the call around one leaves no call behind.
pub static QUOTABLE_TOKENS: LazyLock<[(&str, Dialect); 14]> = LazyLock::new(|| {
    [
        (deepseek::CALL_BEGIN, Dialect::DeepSeek),
        (deepseek::DSML_CALLS, Dialect::DeepSeek),
        (kimi::CALL_BEGIN, Dialect::Kimi),
        (gemma::FUNCTION_GEMMA_OPEN, Dialect::Gemma),
        (gemma::GEMMA_4_OPEN, Dialect::Gemma),
        (minimax::SECTION, Dialect::MiniMax),
        (pythonic::PYTHON_START, Dialect::Pythonic),
        (pythonic::TOOL_CALL_START, Dialect::Pythonic),
        (
            concat(&[function::OPEN, "get_weather> ", qwen_xml::PARAMETER, "x>"]),
            Dialect::QwenXml,
        ),
        (
            concat(&[tool_call::OPEN, "get_weather ", glm::KEY]),
            Dialect::Glm,
        ),
        (
            concat(&[mistral::TOOL_CALLS, "get_weather", mistral::ARGS]),
            Dialect::Mistral,
        ),
        (concat(&[granite::TOOL_CALL, "["]), Dialect::Granite),
        (phi4::FUNCTOOLS, Dialect::Phi4),
        (
            concat(&[
                harmony::RECIPIENT,
                harmony::FUNCTIONS,
                "get_weather",
                harmony::MESSAGE,
            ]),
            Dialect::Harmony,
        ),
    ]
});

/// What replaces a quoted token whose dialect the reply also writes a block in (see
/// `CallSpec::defuse_token`): Phi-4's opener, or when the reply writes a Phi-4 block too
/// (then it would take that block's `]`), the first of `QUOTABLE_TOKENS` whose dialect
/// the reply does not write, which has no closer to take.
const DEFUSED_TOKEN: (&str, Dialect) = (phi4::FUNCTOOLS, Dialect::Phi4);

/// What a ReAct step can be glued to.
const GLUE: [&str; 6] = ["re", "trans", "é", "日", "_", "9"];

/// What writing a call produced: where it is, the call it means (if it means one), and
/// where the step it quotes is and which name that calls.
pub struct Written {
    pub span: Range<usize>,
    pub intended: Option<(PyStr, Value)>,
    pub quoted: Option<(Range<usize>, PyStr)>,
}

impl CallSpec {
    /// A call to one of `offered` (clean) or to anything (hostile).
    ///
    /// A clean call to a made-up name quotes a ReAct step to an offered tool in its
    /// arguments: the call is matched and rejected, and what it quotes must not run.
    pub fn generate(g: &mut Gen<'_, '_>, offered: &Offered) -> Result<CallSpec> {
        let name = CallName::generate(g, true)?;
        let syntax = Syntax::generate(g, name.text(offered).as_deref())?;
        let hostile = g.hostile();
        let glue = match syntax == Syntax::React && g.chance(1, 4)? {
            true => g.pick(&GLUE)?,
            false => "",
        };
        let mut args = g.nested(Json::arguments)?;
        let mut quoted = None;
        if let (false, "", CallName::Invented(_), Json::Object(members)) =
            (hostile, glue, &name, &mut args)
        {
            if let Some((step, called)) = CallName::quoted_step(offered) {
                members.push((PyStr::from("quoted"), Json::Str(PyStr::from(step.as_str()))));
                quoted = Some((step, called));
            }
        }
        let mut token = None;
        if let (false, "", Json::Object(members)) = (hostile, glue, &mut args) {
            if g.chance(1, 5)? {
                let (text, dialect) = g.pick(&*QUOTABLE_TOKENS)?;
                members.push((PyStr::from("token"), Json::Str(PyStr::from(text))));
                token = Some((text, dialect));
            }
        }
        Ok(CallSpec {
            glue,
            quoted,
            token,
            syntax,
            name,
            keys: if hostile {
                g.pick(&Keys::ALL)?
            } else {
                g.pick(&Keys::ALL[..5])?
            },
            args,
            opener: Casing::generate(g)?,
            closer: Casing::generate(g)?,
            pads: [
                space(g)?,
                space(g)?,
                space(g)?,
                space(g)?,
                space(g)?,
                space(g)?,
            ],
            style: JsonStyle::generate(g)?,
            damage: if hostile && g.chance(1, 3)? {
                g.pick(&[
                    Damage::NoCloser,
                    Damage::Cut(1),
                    Damage::Cut(7),
                    Damage::ExtraBrace,
                ])?
            } else {
                Damage::None
            },
        })
    }

    /// Replaces the quoted token by one that pairs with nothing when the reply writes a
    /// block in its dialect: the scanners pair openers and closers left to right, so an
    /// opener quoted in another dialect's call takes the closer of the next block of its
    /// dialect, and that block is lost (a limitation, `docs/fuzzing.md`).
    pub fn defuse_token(&mut self, written: &[Dialect]) {
        let Some((text, dialect)) = self.token else {
            return;
        };
        if !written.contains(&dialect) {
            return;
        }
        let defused = std::iter::once(&DEFUSED_TOKEN)
            .chain(QUOTABLE_TOKENS.iter())
            .find(|(_, d)| !written.contains(d));
        if let Json::Object(members) = &mut self.args {
            for (key, value) in members.iter_mut() {
                if key.as_str() == Some("token")
                    && matches!(value, Json::Str(s) if s.as_str() == Some(text))
                {
                    // With every dialect written, no token is safe: plain text instead.
                    let replacement = defused.map_or(functools_word(), |(t, _)| t);
                    *value = Json::Str(PyStr::from(replacement));
                }
            }
        }
        self.token = defused.copied();
    }

    /// Appends the call to `out`.
    pub fn render(&self, offered: &Offered, out: &mut String) -> Written {
        let start = out.len();
        let [p0, p1, ..] = self.pads;
        match self.syntax {
            Syntax::ToolCall => {
                self.closed(out, tool_call::OPEN, tool_call::CLOSE, offered);
            }
            Syntax::Function => {
                let name = self.name_text(offered);
                let open = self.opener.apply(function::OPEN) + &name + ">";
                out.push_str(&open);
                self.body(out, p0, &self.args_text(), p1, function::CLOSE);
            }
            Syntax::Bracket {
                request_open,
                request_close,
            } => {
                let open = if request_open {
                    bracket::TOOL_REQUEST
                } else {
                    bracket::TOOL_CALL
                };
                let close = if request_close {
                    bracket::TOOL_REQUEST_CLOSE
                } else {
                    bracket::TOOL_CALL_CLOSE
                };
                self.closed(out, open, close, offered);
            }
            Syntax::PythonTag => {
                out.push_str(&self.opener.apply(python_tag::TAG));
                out.push_str(p0);
                out.push_str(&self.damaged(self.payload_text(offered)));
            }
            Syntax::React => self.react(out, offered),
        }
        let quoted = self.quoted.as_ref().and_then(|(step, called)| {
            let at = start + out[start..].find(step.as_str())?;
            Some((at..at + step.len(), called.clone()))
        });
        Written {
            span: start..out.len(),
            intended: self.intended(offered),
            quoted,
        }
    }

    /// A closed-tag dialect with a JSON payload.
    fn closed(&self, out: &mut String, open: &str, close: &str, offered: &Offered) {
        out.push_str(&self.opener.apply(open));
        let [p0, p1, ..] = self.pads;
        self.body(out, p0, &self.payload_text(offered), p1, close);
    }

    /// `\s* payload \s* CLOSE`, damaged as the spec says.
    fn body(&self, out: &mut String, p0: &str, payload: &str, p1: &str, close: &str) {
        out.push_str(p0);
        out.push_str(&self.damaged(payload.to_owned()));
        out.push_str(p1);
        if self.damage != Damage::NoCloser {
            out.push_str(&self.closer.apply(close));
        }
    }

    /// `Action\s*:\s*NAME\s*Action\s*Input\s*:\s*{…}`.
    fn react(&self, out: &mut String, offered: &Offered) {
        let [p0, p1, p2, p3, p4, p5] = self.pads;
        let action = self.opener.apply(react::ACTION);
        out.push_str(self.glue);
        out.push_str(&action);
        out.push_str(p0);
        out.push(':');
        out.push_str(p1);
        out.push_str(&self.name_text(offered));
        out.push_str(p2);
        out.push_str(&action);
        out.push_str(p3);
        out.push_str(&self.opener.apply(react::INPUT));
        out.push_str(p4);
        out.push(':');
        out.push_str(p5);
        out.push_str(&self.damaged(self.args_text()));
    }

    /// The payload with the damage applied (`NoCloser` on the open-ended dialects drops
    /// the last character, the only closer they have).
    fn damaged(&self, mut payload: String) -> String {
        let open_ended = matches!(self.syntax, Syntax::PythonTag | Syntax::React);
        match self.damage {
            Damage::None => {}
            Damage::NoCloser if !open_ended => {}
            Damage::NoCloser => drop_chars(&mut payload, 1),
            Damage::Cut(n) => drop_chars(&mut payload, n),
            Damage::ExtraBrace => payload.push('}'),
        }
        payload
    }

    /// The name as written in a tag or ReAct step.
    fn name_text(&self, offered: &Offered) -> String {
        self.name.text(offered).unwrap_or_else(|| {
            let mut text = String::new();
            self.name.json(offered).render(&self.style, &mut text);
            text
        })
    }

    /// The arguments as JSON text.
    fn args_text(&self) -> String {
        let mut text = String::new();
        self.args.render(&self.style, &mut text);
        text
    }

    /// The payload object of the dialects that carry the name in it.
    fn payload_text(&self, offered: &Offered) -> String {
        let name = self.name.json(offered);
        let key = |k: &str| PyStr::from(k);
        let members = match self.keys {
            Keys::NameArguments => vec![(key("name"), name), (key("arguments"), self.args.clone())],
            Keys::ToolParameters => {
                vec![(key("tool"), name), (key("parameters"), self.args.clone())]
            }
            Keys::NameParameters => {
                vec![(key("name"), name), (key("parameters"), self.args.clone())]
            }
            Keys::EmptyNameThenTool => vec![
                (key("name"), Json::Str(PyStr::new())),
                (key("tool"), name),
                (key("arguments"), self.args.clone()),
            ],
            Keys::NameOnly => vec![(key("name"), name)],
            Keys::Both => vec![
                (key("name"), name),
                (key("parameters"), Json::Object(Vec::new())),
                (key("arguments"), self.args.clone()),
            ],
        };
        let mut text = String::new();
        Json::Object(members).render(&self.style, &mut text);
        text
    }

    /// The call this spec means: an offered name, intact, with arguments that decode (an
    /// object where the dialect requires one). Exact for clean replies; for hostile ones,
    /// what the grammar meant, which quoted closers and the like can defeat.
    fn intended(&self, offered: &Offered) -> Option<(PyStr, Value)> {
        let name = self.name.intended(offered)?;
        let in_tag = !self.syntax.has_payload_name();
        let broken = self.damage != Damage::None || !self.glue.is_empty();
        if broken || (in_tag && !in_name_class(&name.to_string())) {
            return None;
        }
        if in_tag && !self.args.is_object() {
            return None;
        }
        let args = match self.keys {
            Keys::NameOnly if !in_tag => Value::Dict(Dict::default()),
            _ => self.args.to_value()?,
        };
        Some((name, args))
    }
}

/// Removes the last `n` characters of `s`.
fn drop_chars(s: &mut String, n: usize) {
    for _ in 0..n {
        s.pop();
    }
}
