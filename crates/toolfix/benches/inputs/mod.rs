//! The benchmark inputs: model replies for salvage and tool registries for dispatch.
//!
//! Every bench builds its inputs here, and `benches/dump_inputs.rs` writes the same bytes
//! to files for `scripts/bench_praisonai.py`, so the real package is timed on identical
//! inputs. Each input carries what salvage or dispatch must return for it; the benches
//! check that before timing (a broken input must not produce a fast, meaningless number)
//! and the Python script checks the real package against the same expectation.
//!
//! Everything is deterministic: a fixed-seed generator picks the prose, nothing depends
//! on the clock or the environment.

use toolfix::dispatch::{Dispatch, Outcome, Registry, Tool, execute};
use toolfix::py::{Dict, PyStr, Value};
use toolfix::salvage::{Allowlist, Request, salvage_under};
use toolfix::{Adapter, Profile};
use toolfix::{Param, ParamKind};

pub const KIB: usize = 1024;
pub const MIB: usize = 1024 * KIB;

/// The sizes of the prose replies: a short answer, a long one, a whole document.
pub const PROSE_SIZES: [usize; 3] = [KIB, 64 * KIB, MIB];
/// The sizes of the adversarial replies; growth is measured across them.
pub const ADVERSARIAL_SIZES: [usize; 5] = [16 * KIB, 32 * KIB, 64 * KIB, 256 * KIB, MIB];
/// The numbers of calls in the call-heavy replies.
pub const CALL_COUNTS: [usize; 3] = [10, 100, 1000];
/// The registry sizes for dispatch.
pub const REGISTRY_SIZES: [usize; 3] = [10, 100, 1000];

/// The tools offered with every call-heavy reply.
pub const REPLY_TOOLS: [&str; 5] = [
    "get_weather",
    "web_search",
    "read_file",
    "send_email",
    "calculator",
];

/// One model reply and what salvage must make of it.
pub struct Reply {
    /// The benchmark group: what kind of reply this is.
    pub group: &'static str,
    /// The parameter within the group: its size or number of calls.
    pub param: String,
    pub text: String,
    /// The tool names offered.
    pub tools: Vec<&'static str>,
    /// How many calls salvage recovers, under both profiles.
    pub calls: usize,
    /// Whether CPython's time on it grows quadratically (docs/behaviour.md §5(c)).
    pub quadratic_in_cpython: bool,
}

impl Reply {
    pub fn len(&self) -> usize {
        self.text.len()
    }

    /// The reply's key in the Python results: `group/param`.
    pub fn key(&self) -> String {
        format!("{}/{}", self.group, self.param)
    }

    /// The salvage request the benches time.
    pub fn request<'a>(&'a self, tools: &'a Allowlist) -> Request<'a> {
        Request::new(self.text.as_str(), tools).adapter(Adapter::Ollama)
    }

    pub fn allowlist(&self) -> Allowlist {
        Allowlist::new(self.tools.iter().copied())
    }

    /// Panics unless salvage gives exactly the expected number of calls under `profile`.
    pub fn check(&self, tools: &Allowlist, profile: Profile) {
        let calls = salvage_under(&self.request(tools), profile)
            .unwrap_or_else(|e| panic!("{}: salvage failed: {e:?}", self.key()));
        assert_eq!(calls.len(), self.calls, "{} under {profile:?}", self.key());
    }
}

/// A size as the tables print it: `1KiB`, `64KiB`, `1MiB`.
pub fn size_label(bytes: usize) -> String {
    if bytes >= MIB && bytes % MIB == 0 {
        format!("{}MiB", bytes / MIB)
    } else {
        format!("{}KiB", bytes / KIB)
    }
}

// ------------------------------------------------------------------------------------
// Prose
// ------------------------------------------------------------------------------------

/// Sentences of the kind a chat model writes around (or instead of) tool calls. None
/// holds a marker, a fence, `<`, `[` or `{`; words ending in `-ction` are kept on purpose,
/// because they are the probe's commonest false candidates in real English.
const SENTENCES: &[&str] = &[
    "Here is a summary of what I found about the weather in Paris this week.",
    "Temperatures should stay between twelve and eighteen degrees, with light rain on Thursday.",
    "If you are planning to walk around the city, a light jacket and an umbrella are a good idea.",
    "The forecast for Berlin is colder, so pack an extra layer if you travel there next.",
    "I could not find an official source for the pollen count, so treat that part as an estimate.",
    "Let me know if you would like the same summary for another city or another date.",
    "The function you wrote reads the whole file into memory before it starts parsing.",
    "For large inputs it is better to stream the lines and handle each one as it arrives.",
    "Make sure the error path closes the file handle, otherwise the descriptor leaks.",
    "The instructions in the third section of the README describe how to run the tests locally.",
    "Each test creates a temporary directory, so the tests can run in parallel without conflicts.",
    "You can reproduce the failure by running the suite twice in a row with the same seed.",
    "The slowdown comes from the nested loop, which compares every pair of records.",
    "Sorting the records first and then scanning them once brings the cost down to linear time.",
    "I would also add a short comment that explains why the order of the keys matters.",
    "Your budget for the trip looks reasonable, although hotels near the station cost more.",
    "Booking two weeks ahead usually saves about a fifth of the price of the room.",
    "Trains between the two cities leave every hour and the journey takes just under four hours.",
    "A rail pass only pays off if you make at least three long journeys during the week.",
    "The museum is closed on Mondays, and the queue is shortest right after it opens.",
    "To make the sauce, melt the butter over low heat and whisk in the flour.",
    "Add the milk slowly and keep stirring, so the mixture stays smooth and does not burn.",
    "Season it with salt, pepper and a little nutmeg once it has thickened.",
    "The recipe serves four people, but it is easy to double for a larger group.",
    "Your portfolio is weighted heavily towards a single sector, which raises the risk.",
    "Spreading the money across a few broad funds would reduce the effect of one bad year.",
    "Past returns are no guarantee of future results, so please check with an adviser.",
    "The report lists three options, and the second one has the lowest running cost.",
    "In the introduction the author argues that the main problem is a lack of clear ownership.",
    "The conclusion repeats this point and suggests a weekly review with a named owner.",
    "Overall the document is well organised, though a few paragraphs repeat the same idea.",
    "I have corrected the spelling mistakes and shortened the longest sentences.",
    "The email to the customer should apologise for the delay and give a new delivery date.",
    "Keep the tone friendly and direct, and avoid promising anything you cannot check.",
    "The meeting is scheduled for Tuesday at ten, and the agenda is attached to the invite.",
    "Please send the slides by Monday evening so everyone can read them before the call.",
    "The dataset has about twelve thousand rows, and roughly two percent of them are missing a date.",
    "Dropping those rows changes the average by less than one percent, so it is safe to do.",
    "A bar chart shows the monthly totals more clearly than a pie chart would.",
    "The correlation between the two columns is weak, so I would not draw strong conclusions.",
    "The main difference between the two libraries is how they handle errors.",
    "The first one returns an error value, while the second one raises an exception.",
    "Both are well maintained, have good documentation and are released under permissive licences.",
    "If you only need the basic features, the smaller library is the simpler choice.",
    "The garden gets full sun in the afternoon, which suits tomatoes and herbs.",
    "Water the plants early in the morning, and check the soil before watering again.",
    "A thin layer of mulch keeps the moisture in during the hottest weeks of summer.",
    "I hope this helps, and feel free to ask if anything is unclear.",
];

/// A small deterministic generator (SplitMix64): the same prose on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Paragraphs of English prose, as a stream of words: sentences picked at random,
/// three to six per paragraph.
struct Prose {
    rng: Rng,
    out: String,
    words: usize,
}

impl Prose {
    fn new(seed: u64) -> Prose {
        Prose {
            rng: Rng(seed),
            out: String::new(),
            words: 0,
        }
    }

    /// Appends one paragraph, calling `between` after every word (the word count so far
    /// and the text) so a caller can insert words of its own.
    fn paragraph(&mut self, between: &mut impl FnMut(usize, &mut String)) {
        if !self.out.is_empty() {
            self.out.push_str("\n\n");
        }
        let sentences = 3 + self.rng.below(4);
        for s in 0..sentences {
            let sentence = SENTENCES[self.rng.below(SENTENCES.len())];
            for (w, word) in sentence.split(' ').enumerate() {
                if s > 0 || w > 0 {
                    self.out.push(' ');
                }
                self.out.push_str(word);
                self.words += 1;
                between(self.words, &mut self.out);
            }
        }
    }

    /// At least `bytes` bytes of prose.
    fn until(mut self, bytes: usize, mut between: impl FnMut(usize, &mut String)) -> String {
        while self.out.len() < bytes {
            self.paragraph(&mut between);
        }
        self.out
    }
}

/// Clean prose of exactly `bytes` bytes: no marker, so salvage stops at the probe.
pub fn clean_prose(bytes: usize) -> String {
    let mut text = Prose::new(1).until(bytes, |_, _| {});
    text.truncate(bytes);
    text
}

fn prose_reply(group: &'static str, text: String) -> Reply {
    Reply {
        group,
        param: size_label(text.len()),
        text,
        tools: REPLY_TOOLS.to_vec(),
        calls: 0,
        quadratic_in_cpython: false,
    }
}

/// The prose replies: clean, and with the marker word `action` (which sends both the real
/// package and toolfix through the full scan, finding nothing).
pub fn prose_replies() -> Vec<Reply> {
    let mut replies = Vec::new();
    for bytes in PROSE_SIZES {
        replies.push(prose_reply("clean", clean_prose(bytes)));
        replies.push(prose_reply("action-once", action_once(bytes)));
        replies.push(prose_reply(
            "action-every-50-words",
            every_50_words(bytes, "action"),
        ));
        replies.push(prose_reply(
            "react-every-50-words",
            every_50_words(bytes, "Action: web_search."),
        ));
    }
    replies
}

/// Clean prose of exactly `bytes` bytes with the word `action` once, in the middle.
fn action_once(bytes: usize) -> String {
    let word = " action";
    let mut text = clean_prose(bytes - word.len());
    let middle = text[..text.len() / 2].rfind(' ').unwrap_or(0);
    text.insert_str(middle, word);
    text
}

/// Prose of exactly `bytes` bytes with `insert` after every 50th word.
fn every_50_words(bytes: usize, insert: &str) -> String {
    let mut text = Prose::new(2).until(bytes, |words, out| {
        if words % 50 == 0 {
            out.push(' ');
            out.push_str(insert);
        }
    });
    text.truncate(bytes);
    text
}

// ------------------------------------------------------------------------------------
// Call-heavy replies
// ------------------------------------------------------------------------------------

const CITIES: [&str; 8] = [
    "Paris", "Berlin", "Madrid", "Lisbon", "Vienna", "Prague", "Oslo", "Dublin",
];

/// The `k`th call in dialect `k % 6`, with realistic arguments.
fn embedded_call(k: usize) -> String {
    let city = CITIES[k % CITIES.len()];
    match k % 6 {
        0 => format!(
            "<tool_call>\n{{\"name\": \"get_weather\", \"arguments\": {{\"city\": \"{city}\", \"units\": \"metric\"}}}}\n</tool_call>"
        ),
        1 => format!(
            "<function=web_search>{{\"query\": \"things to do in {city}\", \"max_results\": {}}}</function>",
            3 + k % 7
        ),
        2 => format!(
            "[TOOL_CALL]{{\"name\": \"read_file\", \"arguments\": {{\"path\": \"notes/{k}.md\"}}}}[/TOOL_CALL]"
        ),
        3 => format!(
            "[TOOL_REQUEST]\n{{\"name\": \"send_email\", \"arguments\": {{\"to\": \"team@example.com\", \"subject\": \"Report {k}\", \"body\": \"See the attached summary.\\nThanks!\"}}}}\n[END_TOOL_REQUEST]"
        ),
        4 => format!(
            "<|python_tag|>{{\"name\": \"calculator\", \"parameters\": {{\"expression\": \"{k} * 1.2 + 7\"}}}}"
        ),
        _ => format!(
            "Thought: I should look this up.\nAction: web_search\nAction Input: {{\"query\": \"{city} opening hours\"}}\nObservation: pending"
        ),
    }
}

/// A reply with `n` calls in every embedded dialect, interleaved, each after a sentence
/// of prose.
fn mixed_calls(n: usize) -> String {
    let mut rng = Rng(3);
    let mut text = String::new();
    for k in 0..n {
        text.push_str(SENTENCES[rng.below(SENTENCES.len())]);
        text.push('\n');
        text.push_str(&embedded_call(k));
        text.push('\n');
    }
    text.push_str(SENTENCES[rng.below(SENTENCES.len())]);
    text
}

/// A whole-content JSON list of `n` calls.
fn whole_json_calls(n: usize) -> String {
    let calls: Vec<String> = (0..n)
        .map(|k| {
            format!(
                "{{\"name\": \"get_weather\", \"arguments\": {{\"city\": \"{}\", \"units\": \"metric\"}}}}",
                CITIES[k % CITIES.len()]
            )
        })
        .collect();
    format!("[{}]", calls.join(",\n "))
}

/// The call-heavy replies.
pub fn call_replies() -> Vec<Reply> {
    let mut replies = Vec::new();
    for n in CALL_COUNTS {
        for (group, text) in [
            ("calls-mixed", mixed_calls(n)),
            ("calls-whole-json", whole_json_calls(n)),
        ] {
            replies.push(Reply {
                group,
                param: format!("{n} calls"),
                text,
                tools: REPLY_TOOLS.to_vec(),
                calls: n,
                quadratic_in_cpython: false,
            });
        }
    }
    replies
}

// ------------------------------------------------------------------------------------
// Adversarial replies (docs/behaviour.md §5(c))
// ------------------------------------------------------------------------------------

/// One adversarial family: how its reply of about `bytes` bytes is built.
pub struct Family {
    pub name: &'static str,
    /// Whether the real package is quadratic on it (measured in docs/behaviour.md §5(c)).
    pub quadratic_in_cpython: bool,
    /// Calls recovered per repetition of the unit.
    pub calls_per_unit: usize,
    build: Shape,
}

enum Shape {
    /// `unit` repeated to fill the size, then `tail`.
    Repeat {
        unit: &'static str,
        tail: &'static str,
    },
    /// `head`, then `unit` repeated to fill the size.
    Prefix {
        head: &'static str,
        unit: &'static str,
    },
    /// `` `×n x `×(n-1) `` and ` action`: one long fence whose body CPython's
    /// back-reference re-compares at every position.
    BacktickLadder,
    /// `head`, then `unit` repeated to fill the size, then `tail`.
    Wrapped {
        head: &'static str,
        unit: &'static str,
        tail: &'static str,
    },
}

impl Family {
    /// The reply of about `bytes` bytes (at most `bytes`) and its number of calls.
    pub fn build(&self, bytes: usize) -> (String, usize) {
        match self.build {
            Shape::Repeat { unit, tail } => {
                let n = (bytes - tail.len()) / unit.len();
                (unit.repeat(n) + tail, n * self.calls_per_unit)
            }
            Shape::Prefix { head, unit } => {
                let n = (bytes - head.len()) / unit.len();
                (head.to_owned() + &unit.repeat(n), 0)
            }
            Shape::Wrapped { head, unit, tail } => {
                let n = (bytes - head.len() - tail.len()) / unit.len();
                (
                    head.to_owned() + &unit.repeat(n) + tail,
                    n * self.calls_per_unit,
                )
            }
            Shape::BacktickLadder => {
                let tail = " action";
                let n = (bytes - tail.len()) / 2;
                (format!("{}x{}{tail}", "`".repeat(n), "`".repeat(n - 1)), 0)
            }
        }
    }
}

const fn repeat(name: &'static str, quadratic: bool, unit: &'static str) -> Family {
    Family {
        name,
        quadratic_in_cpython: quadratic,
        calls_per_unit: 0,
        build: Shape::Repeat { unit, tail: "" },
    }
}

/// Every family of docs/behaviour.md §5(c), in its order.
pub const FAMILIES: &[Family] = &[
    repeat("tool_call-unclosed", true, "<tool_call>{"),
    repeat("tool_call-empty-unclosed", true, "<tool_call>{}"),
    repeat("bracket-unclosed", true, "[TOOL_CALL]{"),
    repeat("function-unclosed", true, "<function=a>{"),
    repeat("react-no-input", true, "Action: a Action Input:"),
    repeat(
        "react-no-input-newlines",
        true,
        "Action: a\nAction Input:\n",
    ),
    Family {
        name: "react-ok",
        quadratic_in_cpython: false,
        calls_per_unit: 1,
        build: Shape::Repeat {
            unit: "Action: a Action Input: {\"k\": 1} ",
            tail: "",
        },
    },
    repeat("python_tag-bare", true, "<|python_tag|>"),
    repeat("python_tag-open-object", true, "<|python_tag|>{\"a\":"),
    Family {
        name: "fence-run-then-action",
        quadratic_in_cpython: false,
        calls_per_unit: 0,
        build: Shape::Repeat {
            unit: "```",
            tail: " action",
        },
    },
    Family {
        name: "fences-then-action",
        quadratic_in_cpython: false,
        calls_per_unit: 0,
        build: Shape::Repeat {
            unit: "```x",
            tail: " action",
        },
    },
    Family {
        name: "backtick-ladder-then-action",
        quadratic_in_cpython: true,
        calls_per_unit: 0,
        build: Shape::BacktickLadder,
    },
    Family {
        name: "tool_call-deep-braces",
        quadratic_in_cpython: false,
        calls_per_unit: 0,
        build: Shape::Prefix {
            head: "<tool_call>",
            unit: "{",
        },
    },
];

/// `unit` repeated, recovering `calls` calls per repetition.
const fn units(name: &'static str, calls: usize, unit: &'static str) -> Family {
    wrapped(name, calls, "", unit, "")
}

/// `head`, `unit` repeated, `tail`, recovering `calls` calls per repetition.
const fn wrapped(
    name: &'static str,
    calls: usize,
    head: &'static str,
    unit: &'static str,
    tail: &'static str,
) -> Family {
    Family {
        name,
        quadratic_in_cpython: false,
        calls_per_unit: calls,
        build: Shape::Wrapped { head, unit, tail },
    }
}

/// The worst cases of the dialects only `strict` and `portable` recover (and of the
/// reasoning masking they share), timed under `strict` only: the real package reads none
/// of these formats. Each attacks what its scanner could rescan: thousands of openers
/// without a closer, decodes that read far and fail with a marker inside what they read,
/// nested unclosed structures, long names and headers, lists that fail at their very end.
/// A family that recovers calls shows the cost per call of its dialect.
pub const DIALECT_FAMILIES: &[Family] = &[
    // llama_json: a `;`-separated sequence that fails at its last object; a chain of
    // calls after one `<|python_tag|>`.
    wrapped(
        "llama_json-semicolons-fail-late",
        0,
        "",
        "{\"name\": \"a\", \"parameters\": {\"k\": 1}}; ",
        "{",
    ),
    wrapped(
        "llama_json-python_tag-chain",
        1,
        "<|python_tag|>",
        "{\"name\": \"a\", \"parameters\": {\"k\": 1}}; ",
        "",
    ),
    // pythonic: a whole-reply list that fails at its end, wrappers that never close.
    wrapped(
        "pythonic-whole-fails-late",
        0,
        "[",
        "a(x=1, y='s', z=[1, 2]), ",
        "",
    ),
    units(
        "pythonic-python_start-unclosed",
        0,
        "<|python_start|>[a(x='",
    ),
    units(
        "pythonic-tool_call_start-calls",
        1,
        "<|tool_call_start|>[a(x=1)]<|tool_call_end|>",
    ),
    // mistral: the decode reads to the next quote, which the next marker holds; names of
    // the longest length read, with no `[ARGS]`; an array that fails at its end, markers in
    // its strings; a v11 chain of calls.
    units(
        "mistral-args-unterminated-string",
        0,
        "[TOOL_CALLS]a[ARGS]{\"x\":\"",
    ),
    units(
        "mistral-long-names-no-args",
        0,
        "[TOOL_CALLS]nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn",
    ),
    wrapped(
        "mistral-array-fails-late",
        0,
        "[TOOL_CALLS][",
        "{\"name\": \"a\", \"arguments\": {\"x\": \"[TOOL_CALLS][\"}}, ",
        "",
    ),
    units(
        "mistral-nested-unclosed",
        0,
        "[TOOL_CALLS]a[ARGS]{\"a\": [{\"b\": [",
    ),
    wrapped(
        "mistral-v11-chain",
        1,
        "[TOOL_CALLS]",
        "a[ARGS]{\"x\": 1} ",
        "",
    ),
    // qwen_xml: openers with parameters and no `</function>`; well-formed calls.
    units(
        "qwen_xml-unclosed",
        0,
        "<tool_call>\n<function=a>\n<parameter=x>\n1\n</parameter>\n",
    ),
    units(
        "qwen_xml-parameters-unclosed",
        0,
        "<function=a>\n<parameter=x>\n1\n",
    ),
    units(
        "qwen_xml-calls",
        1,
        "<tool_call>\n<function=a>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>\n",
    ),
    // deepseek: call blocks that never end, DSML invokes without closers in a closed
    // section, DSML sections that never close, V3.1 calls.
    units(
        "deepseek-begin-unclosed",
        0,
        "<｜tool▁call▁begin｜>function<｜tool▁sep｜>a\n```json\n{\"x\": 1}\n```",
    ),
    wrapped(
        "deepseek-dsml-invokes-unclosed",
        0,
        "<｜DSML｜function_calls>\n",
        "<｜DSML｜invoke name=\"a\">\n<｜DSML｜parameter name=\"x\" string=\"true\">v</｜DSML｜parameter>\n",
        "</｜DSML｜function_calls>",
    ),
    units(
        "deepseek-dsml-sections-unclosed",
        0,
        "<｜DSML｜function_calls><｜DSML｜invoke name=\"a\"><｜DSML｜parameter name=\"x\" string=\"false\">[",
    ),
    // the shared start of every DSML tag, with no section after it; V4.1 sections that
    // never close; V4.1 self-closing invokes, each a call.
    units("deepseek-dsml-lead-flood", 0, "<｜DSML｜"),
    units(
        "deepseek-v4.1-sections-unclosed",
        0,
        "<｜DSML｜ calls><｜DSML｜ invoke name=\"a\"><｜DSML｜ parameter name=\"x\" string=\"false\">[",
    ),
    wrapped(
        "deepseek-v4.1-self-closing-invokes",
        1,
        "<｜DSML｜ calls>\n",
        "<｜DSML｜ invoke name=\"a\"/>\n",
        "</｜DSML｜ calls>",
    ),
    units(
        "deepseek-v3.1-calls",
        1,
        "<｜tool▁call▁begin｜>a<｜tool▁sep｜>{\"x\": 1}<｜tool▁call▁end｜>",
    ),
    // glm: blocks whose value never closes; names of the longest length read, then prose.
    units(
        "glm-unclosed",
        0,
        "<tool_call>a\n<arg_key>x</arg_key>\n<arg_value>",
    ),
    units(
        "glm-long-names",
        0,
        "<tool_call>nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn x ",
    ),
    // kimi: calls whose end never comes, their JSON cut; well-formed calls.
    units(
        "kimi-unclosed",
        0,
        "<|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{\"x\": [",
    ),
    wrapped(
        "kimi-calls",
        1,
        "<|tool_calls_section_begin|>",
        "<|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{\"x\": 1}<|tool_call_end|>",
        "<|tool_calls_section_end|>",
    ),
    // harmony: a flood of `<|message|>` (each looks back for its header), messages with
    // headers of the longest length looked at, bodies whose string runs to the next
    // message, well-formed calls.
    units("harmony-message-flood", 0, "<|message|>"),
    units(
        "harmony-long-headers",
        0,
        "<|start|>assistant<|channel|>commentary hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh to=functions.a <|constrain|>json<|message|>{\"x\":",
    ),
    units(
        "harmony-unterminated-strings",
        0,
        "to=functions.a<|message|>{\"x\":\"",
    ),
    units(
        "harmony-calls",
        1,
        "<|start|>assistant<|channel|>commentary to=functions.a <|constrain|>json<|message|>{\"x\": 1}<|call|>",
    ),
    // reasoning (every dialect): analysis channels each ended by the next `<|start|>`,
    // with the only `<|end|>` at the very end; `<think>` blocks that never close.
    wrapped(
        "reasoning-analysis-channels",
        0,
        "",
        "<|channel|>analysis<|message|>x<|start|>",
        "<|end|>",
    ),
    units("reasoning-think-unclosed", 0, "<think><tool_call>{"),
    // Token calls written in reasoning are no calls, and the fences after them are
    // fences: every one of them is dropped from the spans kept out of fence masking.
    wrapped(
        "reasoning-kimi-calls-in-think",
        0,
        "<think>",
        "<|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{\"x\": 1}<|tool_call_end|>",
        "</think>```",
    ),
    // gemma: blocks that never end, inside an escaped string; one block of many
    // arguments whose last one does not read; well-formed calls.
    units(
        "gemma-unclosed",
        0,
        "<start_function_call>call:a{x:<escape>",
    ),
    wrapped(
        "gemma4-arguments-fail-late",
        0,
        "<|tool_call>call:a{",
        "x:<|\"|>v<|\"|>,y:[1,{z:2}],",
        "<tool_call|>",
    ),
    units(
        "gemma-calls",
        1,
        "<start_function_call>call:a{x:<escape>v<escape>}<end_function_call>",
    ),
    // minimax: a closed section of invokes that never close; sections that never close.
    wrapped(
        "minimax-invokes-unclosed",
        0,
        "<minimax:tool_call>\n",
        "<invoke name=\"a\">\n<parameter name=\"x\">v</parameter>\n",
        "</minimax:tool_call>",
    ),
    units(
        "minimax-sections-unclosed",
        0,
        "<minimax:tool_call><invoke name=\"a\"><parameter name=\"x\">",
    ),
    // granite: an array that fails at its end with the marker in its strings; markers
    // whose arrays are cut.
    wrapped(
        "granite-array-fails-late",
        0,
        "<|tool_call|>[",
        "{\"name\": \"a\", \"arguments\": {\"x\": \"<|tool_call|>[\"}}, ",
        "",
    ),
    units(
        "granite-unclosed",
        0,
        "<|tool_call|>[{\"name\": \"a\", \"arguments\": {\"x\":",
    ),
    // phi4: a flood of `functools[`; an array that fails at its end, markers in its
    // strings.
    units("phi4-functools-flood", 0, "functools["),
    wrapped(
        "phi4-array-fails-late",
        0,
        "functools[",
        "{\"name\": \"a\", \"arguments\": {\"x\": \"functools[\"}}, ",
        "",
    ),
];

/// The tools offered with the adversarial replies (`a` makes `react-ok` recover calls).
pub const ADVERSARIAL_TOOLS: [&str; 2] = ["a", "get_weather"];

/// Family `family` at `bytes`.
pub fn adversarial_reply(family: &Family, bytes: usize) -> Reply {
    let (text, calls) = family.build(bytes);
    Reply {
        group: family.name,
        param: size_label(bytes),
        text,
        tools: ADVERSARIAL_TOOLS.to_vec(),
        calls,
        quadratic_in_cpython: family.quadratic_in_cpython,
    }
}

/// Every adversarial reply, every size.
pub fn adversarial_replies() -> Vec<Reply> {
    FAMILIES
        .iter()
        .flat_map(|family| {
            ADVERSARIAL_SIZES
                .iter()
                .map(move |&bytes| adversarial_reply(family, bytes))
        })
        .collect()
}

/// Whether `str.lower()` of the text holds one of the markers praisonaiagents probes for
/// (docs/behaviour.md §2(e).2), found the obvious way.
fn has_marker(text: &str) -> bool {
    let lower = text.to_lowercase();
    let markers = [
        "<tool_call>",
        "<function=",
        "[tool_call]",
        "[tool_request]",
        "<|python_tag|>",
        "action",
    ];
    markers.iter().any(|m| lower.contains(m))
}

/// Checks what only the benches can: the clean prose is really clean.
pub fn check_prose(reply: &Reply) {
    let clean = reply.group == "clean";
    assert_eq!(has_marker(&reply.text), !clean, "{}", reply.key());
    assert!(
        reply
            .text
            .bytes()
            .all(|b| b != b'`' && b != b'~' && b != b'{')
    );
}

// ------------------------------------------------------------------------------------
// Dispatch
// ------------------------------------------------------------------------------------

const VERBS: [&str; 25] = [
    "get",
    "list",
    "search",
    "create",
    "update",
    "delete",
    "read",
    "write",
    "fetch",
    "send",
    "run",
    "query",
    "parse",
    "convert",
    "analyze",
    "calculate",
    "translate",
    "summarize",
    "schedule",
    "upload",
    "download",
    "validate",
    "format",
    "compare",
    "archive",
];

const OBJECTS: [&str; 40] = [
    "weather",
    "file",
    "email",
    "calendar_event",
    "user",
    "order",
    "invoice",
    "document",
    "web_page",
    "stock_price",
    "issue",
    "pull_request",
    "message",
    "contact",
    "database_row",
    "image",
    "report",
    "ticket",
    "repository",
    "payment",
    "customer",
    "product",
    "meeting",
    "note",
    "task",
    "folder",
    "spreadsheet",
    "chart",
    "log_entry",
    "comment",
    "review",
    "booking",
    "flight",
    "hotel",
    "recipe",
    "playlist",
    "video",
    "news_article",
    "currency_rate",
    "time_zone",
];

/// `count` realistic tool names (`get_weather`, `create_pull_request`, …), in a fixed
/// shuffled order so that a small registry mixes verbs too.
pub fn tool_names(count: usize) -> Vec<String> {
    let mut names: Vec<String> = VERBS
        .iter()
        .flat_map(|verb| OBJECTS.iter().map(move |object| format!("{verb}_{object}")))
        .collect();
    let mut rng = Rng(4);
    for i in (1..names.len()).rev() {
        names.swap(i, rng.below(i + 1));
    }
    names.truncate(count);
    assert_eq!(
        names.len(),
        count,
        "at most {} names",
        VERBS.len() * OBJECTS.len()
    );
    names
}

/// One dispatch case: a registry, the name the model called, and what must happen.
pub struct DispatchCase {
    /// `exact`, `repair` or `not-found`.
    pub kind: &'static str,
    pub tools: Vec<String>,
    pub requested: String,
    /// The tool whose body runs (none when not found).
    pub runs: Option<String>,
    /// For `not-found`: the corrective error, suggestion included.
    pub error: Option<String>,
}

impl DispatchCase {
    pub fn group(&self) -> String {
        format!("dispatch-{}", self.kind)
    }

    pub fn param(&self) -> String {
        format!("{} tools", self.tools.len())
    }

    pub fn key(&self) -> String {
        format!("{}/{}", self.group(), self.param())
    }

    /// The registry: each tool is `name(query)` and returns `"name: query"`.
    pub fn registry(&self) -> Registry {
        let mut registry = Registry::new();
        for name in &self.tools {
            let query = Param {
                name: PyStr::from("query"),
                kind: ParamKind::PositionalOrKeyword,
                default: None,
            };
            let prefix = format!("{name}: ");
            let tool = Tool::new(name.as_str(), vec![query], move |args| {
                let mut text = PyStr::from(prefix.as_str());
                if let Value::Str(query) = &args[0].1 {
                    text.push_py(query);
                }
                Ok(Value::Str(text))
            })
            .expect("a valid signature");
            registry.add(tool);
        }
        registry
    }

    /// The call's arguments: `{"query": "Paris"}`.
    pub fn arguments(&self) -> Dict {
        let mut arguments = Dict::default();
        arguments.insert(PyStr::from("query"), Value::str("Paris"));
        arguments
    }

    pub fn execute(&self, registry: &Registry, profile: Profile) -> Dispatch {
        execute(
            registry,
            &Value::str(&self.requested),
            &self.arguments(),
            profile,
        )
        .expect("dispatch does not fail")
    }

    /// Panics unless dispatch does what the case says.
    pub fn check(&self, registry: &Registry, profile: Profile) {
        let dispatch = self.execute(registry, profile);
        assert_eq!(
            dispatch.dispatched().map(|n| n.to_string()),
            self.runs,
            "{}",
            self.key()
        );
        match &self.error {
            None => assert_eq!(dispatch.outcome(), Outcome::Ran, "{}", self.key()),
            Some(error) => {
                assert_eq!(dispatch.outcome(), Outcome::NotFound, "{}", self.key());
                assert_eq!(
                    dispatch.returned().get("error"),
                    Some(&Value::str(error)),
                    "{}",
                    self.key()
                );
            }
        }
    }
}

/// `get_weather` → `GetWeather`: a drift that only self-repair resolves.
fn camel_case(name: &str) -> String {
    name.split('_')
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map_or(String::new(), |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

/// `get_weather` → `get_weathre`: a typo that only the corrective suggestion catches.
fn typo(name: &str) -> String {
    let mut bytes = name.as_bytes().to_vec();
    let n = bytes.len();
    bytes.swap(n - 1, n - 2);
    String::from_utf8(bytes).expect("ASCII")
}

/// The three cases against a registry of `count` tools. The name called is always the
/// last registered tool's, the worst case for a linear exact lookup.
pub fn dispatch_cases(count: usize) -> Vec<DispatchCase> {
    let tools = tool_names(count);
    let target = tools.last().expect("a tool").clone();
    let mut inventory = tools.clone();
    inventory.sort();
    let listed: Vec<String> = inventory.iter().map(|n| format!("'{n}'")).collect();
    let misspelt = typo(&target);
    vec![
        DispatchCase {
            kind: "exact",
            tools: tools.clone(),
            requested: target.clone(),
            runs: Some(target.clone()),
            error: None,
        },
        DispatchCase {
            kind: "repair",
            tools: tools.clone(),
            requested: camel_case(&target),
            runs: Some(target.clone()),
            error: None,
        },
        DispatchCase {
            kind: "not-found",
            tools,
            error: Some(format!(
                "Tool '{misspelt}' not found. Did you mean '{target}'? Available tools: [{}]",
                listed.join(", ")
            )),
            requested: misspelt,
            runs: None,
        },
    ]
}
