//! Salvage of a clean reply costs no heap allocation: the deterministic half of "zero cost
//! on clean responses", checked without timing.
//!
//! A counting global allocator wraps `System` and counts only while the current thread
//! has asked it to, so the test harness's other threads (and other tests running in
//! parallel) cannot disturb the count.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use toolfix::salvage::{Allowlist, Event, Request, StreamUnder, salvage_under};
use toolfix::{Adapter, Profile};

thread_local! {
    /// Whether this thread is counting. `const`-initialised and without a destructor, so
    /// reading it never allocates (which would recurse into the allocator).
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    /// Allocations (and reallocations) this thread made while counting.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

/// `System`, plus a count of the current thread's allocations while it is counting.
struct Counting;

impl Counting {
    fn record() {
        if COUNTING.try_with(Cell::get).unwrap_or(false) {
            let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        }
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so
// `System`'s guarantees carry over; counting touches only thread-local `Cell`s, which
// neither allocate nor unwind.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Counting::record();
        // SAFETY: forwarded as received (see the impl).
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        Counting::record();
        // SAFETY: forwarded as received (see the impl).
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        Counting::record();
        // SAFETY: forwarded as received (see the impl).
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as received (see the impl).
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f`, returning its result and how many allocations this thread made in it.
fn allocations<T>(f: impl FnOnce() -> T) -> (T, usize) {
    ALLOCATIONS.with(|n| n.set(0));
    COUNTING.with(|c| c.set(true));
    let result = f();
    COUNTING.with(|c| c.set(false));
    (result, ALLOCATIONS.with(Cell::get))
}

/// About `len` bytes of `paragraph`, repeated.
fn repeated(paragraph: &str, len: usize) -> String {
    paragraph.repeat(len / paragraph.len() + 1)
}

/// Clean replies of a few KB: prose, a numbered and a bulleted list (a leading digit or
/// `-` reaches the whole-content check), Markdown with a fenced code answer, and
/// non-ASCII text. None holds a marker.
fn clean_replies() -> Vec<String> {
    vec![
        repeated(
            "The capital of France is Paris. It lies on the Seine, and its museums \
             hold some of the best-known paintings in the world.\n\n",
            4096,
        ),
        repeated(
            "1. Preheat the oven to 200 degrees.\n2. Mix the flour, the butter and \
             the sugar.\n3. Bake for twenty minutes, then let it cool.\n",
            4096,
        ),
        repeated(
            "- Paris is the capital.\n- Lyon is the third largest city.\n- Nice is on \
             the coast.\n",
            4096,
        ),
        repeated(
            "Here is the function you asked for:\n\n```python\ndef add(a, b):\n    \
             return a + b\n```\n\nIt returns the sum of its arguments.\n",
            4096,
        ),
        repeated(
            "Zürich liegt am Zürichsee. 東京は日本の首都です。İstanbul, naïve café 🎉 — \
             ſ K ı.\n",
            4096,
        ),
    ]
}

#[test]
fn salvaging_a_clean_reply_allocates_nothing() {
    let tools = Allowlist::new(["get_weather", "web_search", "get_time"]);
    for reply in clean_replies() {
        for profile in Profile::ALL {
            for adapter in [Adapter::Ollama, Adapter::Local] {
                let request = Request::new(reply.as_str(), &tools).adapter(adapter);
                let (calls, count) = allocations(|| salvage_under(&request, profile));
                assert_eq!(calls, Ok(Vec::new()));
                assert_eq!(
                    count,
                    0,
                    "{count} allocations under {profile} through {adapter} for {:?}…",
                    &reply[..60]
                );
            }
        }
    }
}

/// Streaming prose allocates nothing either: chunks that hold no byte where a call, a
/// fence or reasoning could begin are shown as they come and never stored. (A reply that
/// opens with a digit is kept whole under `praisonai`, whose whole-content path may raise
/// on a long integer; and fenced code is kept, since a call could follow the fence.)
#[test]
fn streaming_prose_allocates_nothing() {
    let tools = Allowlist::new(["get_weather", "web_search", "get_time"]);
    let replies = clean_replies();
    for (k, reply) in replies.iter().enumerate() {
        for profile in Profile::ALL {
            let kept_whole = k == 3 || (profile.raises_interpreter_errors() && (k == 1 || k == 2));
            if kept_whole {
                continue;
            }
            let chunks = chunks_of(reply, 64);
            let ((), count) = allocations(|| {
                let mut stream = StreamUnder::new(&tools, Adapter::Ollama, profile);
                let mut shown = 0;
                let mut on = |event: Event<'_>| {
                    if let Event::Text(text) = event {
                        shown += text.as_bytes().len();
                    }
                };
                for chunk in &chunks {
                    stream.feed(*chunk, &mut on);
                }
                stream.finish(&mut on).expect("no error");
                assert_eq!(shown, reply.len());
            });
            assert_eq!(
                count, 0,
                "{count} allocations under {profile} for reply {k}"
            );
        }
    }
}

/// `text` in chunks of about `size` bytes, cut at character boundaries.
fn chunks_of(text: &str, size: usize) -> Vec<&str> {
    let mut chunks = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let mut end = (at + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        chunks.push(&text[at..end]);
        at = end;
    }
    chunks
}

#[test]
fn the_counter_sees_allocations() {
    let (_, count) = allocations(|| std::hint::black_box(vec![1u8; 64]));
    assert_eq!(count, 1);
}
