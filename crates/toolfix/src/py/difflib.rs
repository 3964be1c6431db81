//! `difflib.SequenceMatcher` and `difflib.get_close_matches`, ported from CPython 3.11.
//!
//! The corrective error of an unknown tool name carries
//! `difflib.get_close_matches(name, available, n=1, cutoff=0.5)`, so the suggestion depends on
//! every quirk of Python's matcher: the `b2j` index with its *autojunk* heuristic, the tie rules
//! of `find_longest_match`, the extension of a match through popular elements, the `2.0 * M / T`
//! float division, and `heapq.nlargest`'s preference for the larger string on equal scores.
//! This is a line-by-line port over code points (`isjunk=None`, `autojunk=True`, the only
//! configuration `get_close_matches` uses), so no junk set exists and only popularity matters.
//! `get_close_matches` adds pruning by upper bounds, which skips work but never changes a result.

use std::collections::HashMap;

use super::pystr::PyStr;

/// Code points below this are indexed through a flat table instead of a hash map, because tool
/// names are almost always ASCII and the lookup sits in the innermost loop.
const FLAT: usize = 128;

/// Dense ids for the distinct elements of `b`, so per-element state lives in small vectors.
#[derive(Clone, Debug)]
struct ElementIds {
    flat: [Option<u32>; FLAT],
    other: HashMap<u32, u32>,
    count: usize,
}

impl ElementIds {
    fn new() -> ElementIds {
        ElementIds {
            flat: [None; FLAT],
            other: HashMap::new(),
            count: 0,
        }
    }

    /// The id of `cp`, if `cp` occurs in `b`.
    #[inline]
    fn get(&self, cp: u32) -> Option<usize> {
        match self.flat.get(cp as usize) {
            Some(slot) => slot.map(|id| id as usize),
            None => self.other.get(&cp).map(|&id| id as usize),
        }
    }

    /// The id of `cp`, assigning the next one if `cp` is new.
    fn intern(&mut self, cp: u32) -> usize {
        if let Some(id) = self.get(cp) {
            return id;
        }
        let id = self.count;
        self.count += 1;
        match self.flat.get_mut(cp as usize) {
            Some(slot) => *slot = Some(id as u32),
            None => {
                self.other.insert(cp, id as u32);
            }
        }
        id
    }
}

/// The rows of `find_longest_match`'s dynamic programme: `j2len` and `newj2len`.
///
/// CPython builds a fresh dict per row, keyed by `j`, holding the length of the match ending at
/// `(i, j)`. Here one flat array indexed by `j + 1` holds the entries of every row, each tagged
/// with the row that wrote it; an entry tagged with an older row reads as absent. Nothing is
/// ever cleared, and row tags only grow, so entries left by earlier calls never leak in.
struct Rows {
    /// `(row tag, length)` per `j + 1`.
    slots: Vec<(u64, usize)>,
    /// The tag of the last row started.
    row: u64,
}

impl Rows {
    fn new(lb: usize) -> Rows {
        Rows {
            slots: vec![(0, 0); lb + 1],
            row: 0,
        }
    }
}

/// The half of a `SequenceMatcher` that depends on `b` (seq2) alone: `b`, `b2j` after autojunk,
/// and `fullbcount`. `get_close_matches` builds it once for the requested word and reuses it for
/// every candidate, as CPython's `set_seq2(word)` / `set_seq1(x)` does.
#[derive(Clone, Debug)]
struct Index {
    b: Vec<u32>,
    ids: ElementIds,
    /// `b2j`: for each element id, its ascending indices in `b`; empty for popular elements,
    /// which CPython deletes from the dict.
    b2j: Vec<Vec<usize>>,
    /// `fullbcount`: how often each element id occurs in `b` (popular ones included).
    fullbcount: Vec<usize>,
}

/// Buffers reused across comparisons, so ranking many candidates allocates only once.
struct Scratch {
    rows: Rows,
    avail: Vec<usize>,
    queue: Vec<(usize, usize, usize, usize)>,
    blocks: Vec<(usize, usize, usize)>,
}

impl Scratch {
    fn new(lb: usize) -> Scratch {
        Scratch {
            rows: Rows::new(lb),
            avail: Vec::new(),
            queue: Vec::new(),
            blocks: Vec::new(),
        }
    }
}

impl Index {
    /// `set_seq2(b)`: `__chain_b` with `isjunk=None` and `autojunk=True`.
    fn new(b: &[u32]) -> Index {
        let mut ids = ElementIds::new();
        let mut b2j: Vec<Vec<usize>> = Vec::new();
        for (j, &elt) in b.iter().enumerate() {
            let id = ids.intern(elt);
            if id == b2j.len() {
                b2j.push(Vec::new());
            }
            b2j[id].push(j);
        }
        let fullbcount = b2j.iter().map(Vec::len).collect();
        drop_popular(&mut b2j, b.len());
        Index {
            b: b.to_vec(),
            ids,
            b2j,
            fullbcount,
        }
    }

    /// `b2j.get(elt, [])`.
    #[inline]
    fn indices_in_b(&self, elt: u32) -> &[usize] {
        match self.ids.get(elt) {
            Some(id) => &self.b2j[id],
            None => &[],
        }
    }

    /// The body of `find_longest_match(alo, ahi, blo, bhi)`, with caller-owned row buffers.
    fn longest_match(
        &self,
        a: &[u32],
        rows: &mut Rows,
        (alo, ahi): (usize, usize),
        (blo, bhi): (usize, usize),
    ) -> (usize, usize, usize) {
        let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0);
        // Row `alo - 1` is the empty dict CPython starts from.
        rows.row += 1;
        for (i, &elt) in a.iter().enumerate().take(ahi).skip(alo) {
            let prev_row = rows.row;
            rows.row += 1;
            // The entry this row overwrote last, for the next `j` that needs it as `j - 1`.
            let mut overwritten: Option<(usize, (u64, usize))> = None;
            for &j in self.indices_in_b(elt) {
                if j < blo {
                    continue;
                }
                if j >= bhi {
                    break;
                }
                let before = match overwritten {
                    Some((last_j, entry)) if last_j + 1 == j => entry,
                    _ => rows.slots[j],
                };
                let k = if before.0 == prev_row {
                    before.1 + 1
                } else {
                    1
                };
                overwritten = Some((j, rows.slots[j + 1]));
                rows.slots[j + 1] = (rows.row, k);
                if k > bestsize {
                    (besti, bestj, bestsize) = (i + 1 - k, j + 1 - k, k);
                }
            }
        }
        self.extend_match(a, (alo, ahi), (blo, bhi), (besti, bestj, bestsize))
    }

    /// The extension passes after the main loop. The best match found through `b2j` never
    /// touches a popular element, so CPython grows it by equal *non-junk* elements on both
    /// sides, which takes in popular ones. The two junk passes that follow in CPython are
    /// no-ops here: with `isjunk=None` the junk set is empty.
    fn extend_match(
        &self,
        a: &[u32],
        (alo, ahi): (usize, usize),
        (blo, bhi): (usize, usize),
        (mut i, mut j, mut k): (usize, usize, usize),
    ) -> (usize, usize, usize) {
        let b = &self.b;
        while i > alo && j > blo && a[i - 1] == b[j - 1] {
            (i, j, k) = (i - 1, j - 1, k + 1);
        }
        while i + k < ahi && j + k < bhi && a[i + k] == b[j + k] {
            k += 1;
        }
        (i, j, k)
    }

    /// The matching blocks of `get_matching_blocks`, unsorted and unmerged, left in
    /// `scratch.blocks`: the queue-driven recursion around `find_longest_match`.
    fn raw_blocks(&self, a: &[u32], scratch: &mut Scratch) {
        scratch.blocks.clear();
        scratch.queue.clear();
        scratch.queue.push((0, a.len(), 0, self.b.len()));
        while let Some((alo, ahi, blo, bhi)) = scratch.queue.pop() {
            let (i, j, k) = self.longest_match(a, &mut scratch.rows, (alo, ahi), (blo, bhi));
            if k == 0 {
                continue;
            }
            scratch.blocks.push((i, j, k));
            if alo < i && blo < j {
                scratch.queue.push((alo, i, blo, j));
            }
            if i + k < ahi && j + k < bhi {
                scratch.queue.push((i + k, ahi, j + k, bhi));
            }
        }
    }

    /// `ratio()` of `a` against `b`. Merging adjacent blocks does not change their total
    /// size, so the raw blocks suffice.
    fn ratio(&self, a: &[u32], scratch: &mut Scratch) -> f64 {
        self.raw_blocks(a, scratch);
        let matches = scratch.blocks.iter().map(|&(_, _, k)| k).sum();
        calculate_ratio(matches, a.len() + self.b.len())
    }

    /// `quick_ratio()` of `a` against `b`: matches counted as `sum(min(count in a, count in b))`
    /// over elements, popular ones included, exactly as CPython's `avail` dict counts them.
    fn quick_ratio(&self, a: &[u32], avail: &mut Vec<usize>) -> f64 {
        avail.clear();
        avail.extend_from_slice(&self.fullbcount);
        let mut matches = 0;
        for &elt in a {
            if let Some(left) = self.ids.get(elt).map(|id| &mut avail[id])
                && *left > 0
            {
                *left -= 1;
                matches += 1;
            }
        }
        calculate_ratio(matches, a.len() + self.b.len())
    }
}

/// `difflib.SequenceMatcher(None, a, b)` over code points, with `autojunk=True`: the
/// whole of CPython's algorithm, kept as the reference the tests hold the faster
/// `get_close_matches` to.
#[cfg(test)]
#[derive(Clone, Debug)]
pub struct SequenceMatcher {
    a: Vec<u32>,
    index: Index,
}

#[cfg(test)]
impl SequenceMatcher {
    /// `SequenceMatcher(None, a, b)`.
    pub fn new(a: &[u32], b: &[u32]) -> SequenceMatcher {
        SequenceMatcher {
            a: a.to_vec(),
            index: Index::new(b),
        }
    }

    /// `find_longest_match(alo, ahi, blo, bhi)`: `(i, j, k)` with `a[i:i+k] == b[j:j+k]`.
    ///
    /// Out-of-range bounds are clamped to the sequences, where Python would raise or misbehave.
    pub fn find_longest_match(
        &self,
        alo: usize,
        ahi: usize,
        blo: usize,
        bhi: usize,
    ) -> (usize, usize, usize) {
        let ahi = ahi.min(self.a.len());
        let bhi = bhi.min(self.index.b.len());
        let mut rows = Rows::new(self.index.b.len());
        let a_range = (alo.min(ahi), ahi);
        self.index
            .longest_match(&self.a, &mut rows, a_range, (blo.min(bhi), bhi))
    }

    /// `get_matching_blocks()`: the matching triples in order, adjacent ones merged, ending
    /// with the sentinel `(len(a), len(b), 0)`.
    pub fn matching_blocks(&self) -> Vec<(usize, usize, usize)> {
        let mut scratch = Scratch::new(self.index.b.len());
        self.index.raw_blocks(&self.a, &mut scratch);
        scratch.blocks.sort_unstable();
        let mut merged = merge_adjacent(&scratch.blocks);
        merged.push((self.a.len(), self.index.b.len(), 0));
        merged
    }

    /// `ratio()`: `2.0 * M / T`, where `M` counts matched elements and `T = len(a) + len(b)`.
    pub fn ratio(&self) -> f64 {
        let mut scratch = Scratch::new(self.index.b.len());
        self.index.ratio(&self.a, &mut scratch)
    }

    /// `quick_ratio()`: an upper bound on `ratio()` from element counts alone.
    pub fn quick_ratio(&self) -> f64 {
        self.index.quick_ratio(&self.a, &mut Vec::new())
    }

    /// `real_quick_ratio()`: an upper bound on `ratio()` from the lengths alone.
    pub fn real_quick_ratio(&self) -> f64 {
        real_quick_ratio(self.a.len(), self.index.b.len())
    }
}

/// `real_quick_ratio()` from the two lengths.
fn real_quick_ratio(la: usize, lb: usize) -> f64 {
    calculate_ratio(la.min(lb), la + lb)
}

/// The autojunk heuristic: when `b` has 200 or more elements, every element occurring more
/// than `len(b) // 100 + 1` times is popular and leaves `b2j`.
fn drop_popular(b2j: &mut [Vec<usize>], n: usize) {
    if n < 200 {
        return;
    }
    let ntest = n / 100 + 1;
    for indices in b2j.iter_mut().filter(|v| v.len() > ntest) {
        *indices = Vec::new();
    }
}

/// Merges blocks that continue one another, as the tail of `get_matching_blocks` does.
#[cfg(test)]
fn merge_adjacent(blocks: &[(usize, usize, usize)]) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::with_capacity(blocks.len() + 1);
    let (mut i1, mut j1, mut k1) = (0, 0, 0);
    for &(i2, j2, k2) in blocks {
        if i1 + k1 == i2 && j1 + k1 == j2 {
            k1 += k2;
        } else {
            if k1 > 0 {
                out.push((i1, j1, k1));
            }
            (i1, j1, k1) = (i2, j2, k2);
        }
    }
    if k1 > 0 {
        out.push((i1, j1, k1));
    }
    out
}

/// `_calculate_ratio(matches, length)`: `2.0 * matches / length`, or `1.0` for two empty
/// sequences. The operation order is Python's, so the float is bit-identical.
fn calculate_ratio(matches: usize, length: usize) -> f64 {
    if length == 0 {
        return 1.0;
    }
    2.0 * matches as f64 / length as f64
}

/// `difflib.get_close_matches(word, possibilities, n, cutoff)`.
///
/// Each candidate `x` is compared as `SequenceMatcher(a=x, b=word)` and kept when
/// `real_quick_ratio`, `quick_ratio` and `ratio` all reach `cutoff` (inclusive). The kept
/// `(ratio, x)` pairs are ranked as `heapq.nlargest(n, ...)` ranks them: higher ratio first,
/// and on equal ratios the larger string (code-point order) first.
///
/// The result is CPython's, but the work is less: `quick_ratio` bounds `ratio` from above, so
/// candidates are scored in decreasing `quick_ratio` order and scoring stops once no remaining
/// candidate can reach the `n`-th best score found so far.
///
/// Python raises `ValueError` for `n == 0` or a `cutoff` outside `[0.0, 1.0]` (NaN included);
/// here those calls return no matches, since the one caller passes `n=1, cutoff=0.5`.
pub fn get_close_matches<'a>(
    word: &PyStr,
    possibilities: &'a [PyStr],
    n: usize,
    cutoff: f64,
) -> Vec<&'a PyStr> {
    if n == 0 || !(0.0..=1.0).contains(&cutoff) {
        return Vec::new();
    }
    let word: Vec<u32> = word.code_points().collect();
    let index = Index::new(&word);
    let mut scratch = Scratch::new(word.len());
    let mut pool = Candidates::default();
    for (at, x) in possibilities.iter().enumerate() {
        if real_quick_ratio(x.char_len(), word.len()) >= cutoff {
            pool.add(at, x, &index, &mut scratch.avail, cutoff);
        }
    }
    pool.bounds
        .sort_unstable_by(|l, r| r.0.total_cmp(&l.0).then(l.1.cmp(&r.1)));
    let mut lcs = LcsBound::new(&index);
    let mut top: Vec<(f64, &PyStr)> = Vec::new();
    for &(bound, at, span) in &pool.bounds {
        // The score a candidate must reach to change the result.
        let floor = match top.last() {
            Some(&(worst, _)) if top.len() == n => worst,
            _ => cutoff,
        };
        if bound < floor {
            break;
        }
        let x = &pool.code_points[span.0..span.1];
        if lcs
            .as_mut()
            .is_some_and(|lcs| lcs.ratio_bound(&index, x) < floor)
        {
            continue;
        }
        let score = index.ratio(x, &mut scratch);
        if score >= cutoff {
            insert_ranked(&mut top, (score, &possibilities[at]), n);
        }
    }
    top.into_iter().map(|(_, x)| x).collect()
}

/// The longest common subsequence of a candidate and `b`, an upper bound on `ratio`'s matched
/// elements (the matching blocks are a common subsequence) that is much tighter than
/// `quick_ratio` and, computed bit-parallel (Hyyrö 2004), much cheaper than the blocks
/// themselves: one add, and, or per candidate element and 64 elements of `b`.
struct LcsBound {
    /// 64-bit words per bit row over `b`.
    words: usize,
    /// For each element id of `b`, the bit row of its positions in `b`.
    masks: Vec<u64>,
    /// The working row: a zero bit at `j` marks where the LCS grew.
    row: Vec<u64>,
}

/// `b` lengths above this get no LCS bound, so the bit rows stay small (16 words per element).
const LCS_MAX: usize = 1024;

impl LcsBound {
    fn new(index: &Index) -> Option<LcsBound> {
        let lb = index.b.len();
        if lb > LCS_MAX {
            return None;
        }
        let words = lb.div_ceil(64).max(1);
        let mut masks = vec![0u64; index.fullbcount.len() * words];
        for (j, &elt) in index.b.iter().enumerate() {
            let id = index.ids.get(elt)?;
            masks[id * words + j / 64] |= 1 << (j % 64);
        }
        Some(LcsBound {
            words,
            masks,
            row: Vec::with_capacity(words),
        })
    }

    /// `2.0 * LCS / T`, computed exactly as `ratio` is, so comparing it with a ratio is exact.
    fn ratio_bound(&mut self, index: &Index, a: &[u32]) -> f64 {
        let lb = index.b.len();
        calculate_ratio(self.lcs_len(index, a, lb), a.len() + lb)
    }

    /// Hyyrö's recurrence `V = (V + (V & M)) | (V & !M)` over the elements of `a`, with the
    /// addition's carry running across words; the LCS is the number of zero bits of `V` below
    /// `len(b)`.
    fn lcs_len(&mut self, index: &Index, a: &[u32], lb: usize) -> usize {
        self.row.clear();
        self.row.resize(self.words, !0);
        for &elt in a {
            let Some(id) = index.ids.get(elt) else {
                continue;
            };
            let mask = &self.masks[id * self.words..(id + 1) * self.words];
            let mut carry = false;
            for (v, &m) in self.row.iter_mut().zip(mask) {
                let (sum, c1) = v.overflowing_add(*v & m);
                let (sum, c2) = sum.overflowing_add(u64::from(carry));
                carry = c1 || c2;
                *v = sum | (*v & !m);
            }
        }
        let ones: usize = (0..lb)
            .filter(|&j| self.row[j / 64] >> (j % 64) & 1 == 1)
            .count();
        lb - ones
    }
}

/// The candidates that pass the two cheap filters, with their `quick_ratio` bound and their
/// code points decoded once into one buffer.
#[derive(Default)]
struct Candidates {
    code_points: Vec<u32>,
    /// `(quick_ratio, position in possibilities, span in code_points)`.
    bounds: Vec<(f64, usize, (usize, usize))>,
}

impl Candidates {
    fn add(&mut self, at: usize, x: &PyStr, index: &Index, avail: &mut Vec<usize>, cutoff: f64) {
        let start = self.code_points.len();
        self.code_points.extend(x.code_points());
        let bound = index.quick_ratio(&self.code_points[start..], avail);
        if bound >= cutoff {
            self.bounds
                .push((bound, at, (start, self.code_points.len())));
        } else {
            self.code_points.truncate(start);
        }
    }
}

/// Inserts `entry` into `top`, kept in `heapq.nlargest` order (`(score, x)` descending) and
/// at most `n` long.
fn insert_ranked<'a>(top: &mut Vec<(f64, &'a PyStr)>, entry: (f64, &'a PyStr), n: usize) {
    let (score, x) = entry;
    let at = top.partition_point(|&(s, y)| s > score || (s == score && y >= x));
    top.insert(at, entry);
    top.truncate(n);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cps(s: &str) -> Vec<u32> {
        s.chars().map(u32::from).collect()
    }

    fn ratio(a: &str, b: &str) -> f64 {
        SequenceMatcher::new(&cps(a), &cps(b)).ratio()
    }

    fn close(word: &str, possibilities: &[&str]) -> Vec<String> {
        let pool: Vec<PyStr> = possibilities.iter().map(|&s| PyStr::from(s)).collect();
        get_close_matches(&PyStr::from(word), &pool, 1, 0.5)
            .into_iter()
            .map(PyStr::to_string)
            .collect()
    }

    /// Each expectation below was printed by CPython 3.11.7.
    #[test]
    fn known_ratios_match_cpython() {
        assert_eq!(ratio("web_search", "WebSearch"), 0.7368421052631579);
        assert_eq!(ratio("diet", "tide"), 0.5);
        assert_eq!(ratio("tide", "diet"), 0.25);
        assert_eq!(
            ratio("web_search", "totally_made_up_tool"),
            0.13333333333333333
        );
        assert_eq!(ratio("", ""), 1.0);
        let m = SequenceMatcher::new(&cps("abxcd"), &cps("abcd"));
        assert_eq!(m.matching_blocks(), [(0, 0, 2), (3, 2, 2), (5, 4, 0)]);
        assert_eq!(m.find_longest_match(0, 5, 0, 4), (0, 0, 2));
        assert_eq!(m.quick_ratio(), 0.8888888888888888);
        assert_eq!(m.real_quick_ratio(), 0.8888888888888888);
    }

    #[test]
    fn autojunk_drops_popular_elements_of_b() {
        let a = "a".repeat(200);
        let b = format!("{}{}", "b".repeat(10), "a".repeat(200));
        assert_eq!(ratio(&a, &b), 0.0);
        assert!(close(&b, &[&a]).is_empty());
        let a = "a".repeat(189);
        let b = format!("{}{}", "b".repeat(10), a);
        assert_eq!(ratio(&a, &b), 0.9742268041237113);
        assert_eq!(close(&b, &[&a]), [a]);
        // Popular elements are still taken in by the extension passes.
        let s = "a".repeat(200);
        assert_eq!(ratio(&s, &s), 1.0);
    }

    #[test]
    fn ties_go_to_the_larger_string() {
        assert_eq!(close("ab", &["ay", "xb"]), ["xb"]);
        assert_eq!(close("ab", &["xb", "ay"]), ["xb"]);
        assert_eq!(close("ab", &["ac"]), ["ac"]);
        assert_eq!(close("WebSearch", &["web_search"]), ["web_search"]);
        assert!(close("totally_made_up_tool", &["web_search"]).is_empty());
    }

    #[test]
    fn invalid_arguments_match_nothing() {
        let pool = [PyStr::from("a")];
        let word = PyStr::from("a");
        assert!(get_close_matches(&word, &pool, 0, 0.5).is_empty());
        assert!(get_close_matches(&word, &pool, 1, f64::NAN).is_empty());
        assert!(get_close_matches(&word, &pool, 1, 1.5).is_empty());
        assert_eq!(get_close_matches(&word, &pool, 1, 1.0), [&pool[0]]);
    }

    /// The plain quadratic LCS, to check the bit-parallel one against.
    fn naive_lcs(a: &[u32], b: &[u32]) -> usize {
        let mut prev = vec![0; b.len() + 1];
        for &x in a {
            let mut cur = vec![0; b.len() + 1];
            for (j, &y) in b.iter().enumerate() {
                cur[j + 1] = if x == y {
                    prev[j] + 1
                } else {
                    prev[j + 1].max(cur[j])
                };
            }
            prev = cur;
        }
        prev[b.len()]
    }

    #[test]
    fn bit_parallel_lcs_is_exact_across_words() {
        let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n) as u32
        };
        for round in 0..300 {
            let (la, lb) = (next(150) as usize, [1, 63, 64, 65, 130, 200][round % 6]);
            let alphabet = 2 + next(5);
            let a: Vec<u32> = (0..la).map(|_| 97 + next(u64::from(alphabet))).collect();
            let b: Vec<u32> = (0..lb).map(|_| 97 + next(u64::from(alphabet))).collect();
            let index = Index::new(&b);
            let mut lcs = LcsBound::new(&index).expect("short b");
            assert_eq!(
                lcs.lcs_len(&index, &a, lb),
                naive_lcs(&a, &b),
                "{a:?} {b:?}"
            );
        }
    }

    /// Replays `scripts/gen_difflib_testdata.py`'s rows: every result and every pair's ratio
    /// must be CPython's, bit for bit.
    #[test]
    fn replays_cpython_dataset() {
        let data = include_str!("testdata/difflib-cpython-3.11.jsonl");
        let mut rows = 0;
        for (line_no, line) in data.lines().enumerate() {
            let at = format!("line {}", line_no + 1);
            let Json::Array(fields) = Json::parse(line).expect(&at) else {
                panic!("{at}: not an array");
            };
            let [word, pool, n, cutoff, result, ratios] = &fields[..] else {
                panic!("{at}: wrong arity");
            };
            let (word, pool, result) = (word.string(), pool.strings(), result.strings());
            let (n, cutoff) = (n.number() as usize, cutoff.number());
            let got = get_close_matches(&word, &pool, n, cutoff);
            assert_eq!(got, result.iter().collect::<Vec<_>>(), "{at}");
            let Json::Array(ratios) = ratios else {
                panic!("{at}: ratios");
            };
            let w: Vec<u32> = word.code_points().collect();
            for (x, want) in pool.iter().zip(ratios) {
                let x: Vec<u32> = x.code_points().collect();
                let got = SequenceMatcher::new(&x, &w).ratio();
                assert_eq!(got.to_bits(), want.number().to_bits(), "{at}: {x:?}");
            }
            rows += 1;
        }
        assert!(rows > 2000, "dataset too small: {rows}");
    }

    /// The JSON subset the dataset uses: arrays, numbers, and ASCII-escaped strings whose
    /// `\uXXXX` escapes may be lone surrogates.
    enum Json {
        Array(Vec<Json>),
        Number(f64),
        Str(PyStr),
    }

    impl Json {
        fn parse(text: &str) -> Option<Json> {
            let mut p = Parser {
                s: text.as_bytes(),
                at: 0,
            };
            let v = p.value()?;
            (p.at == p.s.len()).then_some(v)
        }

        fn string(&self) -> PyStr {
            match self {
                Json::Str(s) => s.clone(),
                _ => panic!("expected a string"),
            }
        }

        fn strings(&self) -> Vec<PyStr> {
            match self {
                Json::Array(items) => items.iter().map(Json::string).collect(),
                _ => panic!("expected an array"),
            }
        }

        fn number(&self) -> f64 {
            match self {
                Json::Number(x) => *x,
                _ => panic!("expected a number"),
            }
        }
    }

    struct Parser<'a> {
        s: &'a [u8],
        at: usize,
    }

    impl Parser<'_> {
        fn bump(&mut self) -> Option<u8> {
            let b = *self.s.get(self.at)?;
            self.at += 1;
            Some(b)
        }

        fn value(&mut self) -> Option<Json> {
            match *self.s.get(self.at)? {
                b'[' => self.array(),
                b'"' => self.string().map(Json::Str),
                _ => self.number(),
            }
        }

        fn array(&mut self) -> Option<Json> {
            self.at += 1;
            let mut items = Vec::new();
            if self.s.get(self.at) == Some(&b']') {
                self.at += 1;
                return Some(Json::Array(items));
            }
            loop {
                items.push(self.value()?);
                match self.bump()? {
                    b',' => continue,
                    b']' => return Some(Json::Array(items)),
                    _ => return None,
                }
            }
        }

        fn number(&mut self) -> Option<Json> {
            let start = self.at;
            while matches!(
                self.s.get(self.at),
                Some(b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
            ) {
                self.at += 1;
            }
            let text = std::str::from_utf8(&self.s[start..self.at]).ok()?;
            text.parse().ok().map(Json::Number)
        }

        fn string(&mut self) -> Option<PyStr> {
            self.at += 1;
            let mut out = PyStr::new();
            loop {
                match self.bump()? {
                    b'"' => return Some(out),
                    b'\\' => {
                        let cp = self.escape()?;
                        out.push(cp);
                    }
                    b => out.push(u32::from(b)),
                }
            }
        }

        /// One escape after the backslash; a `\uD8xx\uDCxx` pair joins as `json.loads` joins it.
        fn escape(&mut self) -> Option<u32> {
            Some(match self.bump()? {
                b'n' => 0x0A,
                b't' => 0x09,
                b'r' => 0x0D,
                b'b' => 0x08,
                b'f' => 0x0C,
                b'u' => {
                    let hi = self.hex4()?;
                    let rest = &self.s[self.at..];
                    if (0xD800..0xDC00).contains(&hi) && rest.starts_with(b"\\u") {
                        let save = self.at;
                        self.at += 2;
                        let lo = self.hex4()?;
                        if (0xDC00..0xE000).contains(&lo) {
                            return Some(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00));
                        }
                        self.at = save;
                    }
                    hi
                }
                other => u32::from(other),
            })
        }

        fn hex4(&mut self) -> Option<u32> {
            let digits = std::str::from_utf8(self.s.get(self.at..self.at + 4)?).ok()?;
            self.at += 4;
            u32::from_str_radix(digits, 16).ok()
        }
    }

    use proptest::prelude::*;

    proptest! {
        /// The corrective suggestion is difflib's: `SequenceMatcher.ratio` is Ratcliff/Obershelp
        /// by its definition (the longest block, earliest in `a` then in `b`, recursively on both
        /// sides), and `get_close_matches(word, names, 1, 0.5)` is the best-scoring name (the
        /// larger string on a tie) among those scoring at least 0.5. Names shorter than 200
        /// code points, so difflib's autojunk never applies; a small alphabet makes ties common.
        #[test]
        fn suggestions_follow_difflib(
            word in "[ab_A-]{0,10}",
            names in proptest::collection::vec("[ab_A-]{0,10}", 0..6),
        ) {
            let word = PyStr::from(word.as_str());
            let names: Vec<PyStr> = names.iter().map(|n| PyStr::from(n.as_str())).collect();
            let score = |name: &PyStr| ratio_by_definition(&code_points(name), &code_points(&word));
            for name in &names {
                let ratio = SequenceMatcher::new(&code_points(name), &code_points(&word)).ratio();
                prop_assert_eq!(ratio.to_bits(), score(name).to_bits(), "{:?} against {:?}", name, word);
            }
            let best = names
                .iter()
                .map(|name| (score(name), name))
                .filter(|(ratio, _)| *ratio >= 0.5)
                .max_by(|l, r| l.0.total_cmp(&r.0).then(l.1.cmp(r.1)))
                .map(|(_, name)| name);
            prop_assert_eq!(get_close_matches(&word, &names, 1, 0.5).first().copied(), best);
        }
    }

    /// The code points of a name.
    fn code_points(s: &PyStr) -> Vec<u32> {
        s.code_points().collect()
    }

    /// `2.0 * M / T` with `M` the matches Ratcliff/Obershelp finds, by definition.
    fn ratio_by_definition(a: &[u32], b: &[u32]) -> f64 {
        let total = a.len() + b.len();
        if total == 0 {
            return 1.0;
        }
        2.0 * matches_by_definition(a, b) as f64 / total as f64
    }

    /// The longest common block (earliest in `a`, then earliest in `b`), plus the matches to
    /// its left and to its right.
    fn matches_by_definition(a: &[u32], b: &[u32]) -> usize {
        let (mut best_i, mut best_j, mut best) = (0, 0, 0);
        for i in 0..a.len() {
            for j in 0..b.len() {
                let k = a[i..]
                    .iter()
                    .zip(&b[j..])
                    .take_while(|(x, y)| x == y)
                    .count();
                if k > best {
                    (best_i, best_j, best) = (i, j, k);
                }
            }
        }
        if best == 0 {
            return 0;
        }
        best + matches_by_definition(&a[..best_i], &b[..best_j])
            + matches_by_definition(&a[best_i + best..], &b[best_j + best..])
    }
}
