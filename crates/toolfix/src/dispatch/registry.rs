//! The tool registry: tools with declared parameters and a callable body, MCP-style groups,
//! and the permission deny-set.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;

use super::resolve::normalise;
use crate::py::exception::PyException;
use crate::py::signature::{Param, Signature};
use crate::py::{PyStr, Value};

/// The arguments a body receives: every parameter in definition order with its value,
/// defaults applied (`*args` as a list, `**kwargs` as a dict).
pub type Bound = [(PyStr, Value)];

type Body = Box<dyn Fn(&Bound) -> Result<Value, PyException> + Send + Sync>;

/// A tool: a named Python-like function.
pub struct Tool {
    signature: Signature,
    body: Body,
}

impl Tool {
    /// A tool named `name` (its `__name__` and `__qualname__`) with `params`, whose body is
    /// `body`. The parameters must form a signature a Python `def` could have.
    pub fn new<F>(name: impl Into<PyStr>, params: Vec<Param>, body: F) -> Result<Tool, PyException>
    where
        F: Fn(&Bound) -> Result<Value, PyException> + Send + Sync + 'static,
    {
        Ok(Tool {
            signature: Signature::new(name.into(), params)?,
            body: Box::new(body),
        })
    }

    /// The tool's name.
    pub fn name(&self) -> &PyStr {
        &self.signature.qualname
    }

    /// The tool's parameters.
    pub fn signature(&self) -> &Signature {
        &self.signature
    }

    /// Runs the body on bound arguments.
    pub(crate) fn call(&self, bound: &Bound) -> Result<Value, PyException> {
        (self.body)(bound)
    }
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("signature", &self.signature)
            .finish_non_exhaustive()
    }
}

/// The tools an agent dispatches to, in registration order, and the names it refuses.
///
/// The lookups dispatch makes are indexed as tools are added, so resolving a name costs
/// the same against a thousand tools as against three: the exact name (the first
/// top-level tool with it), the normalised key self-repair compares, and the sorted,
/// de-duplicated inventory the corrective error lists.
#[derive(Debug, Default)]
pub struct Registry {
    /// Every tool, groups expanded, in registration order.
    tools: Vec<Tool>,
    /// The indexes of the tools added one by one (not in a group), in order: the tools a
    /// loop describes to the model.
    offered: Vec<usize>,
    /// Top-level tool names to the first tool with that name.
    exact: HashMap<PyStr, usize>,
    /// Normalised display names to the tools that have them, in order.
    by_key: HashMap<PyStr, Vec<usize>>,
    /// `sorted(set(display names))`.
    inventory: BTreeSet<PyStr>,
    deny: HashSet<PyStr>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Adds a tool.
    pub fn add(&mut self, tool: Tool) -> &mut Registry {
        self.exact
            .entry(tool.name().clone())
            .or_insert(self.tools.len());
        self.offered.push(self.tools.len());
        self.index(tool);
        self
    }

    /// Adds a group of tools, as an MCP container: its tools take part in repair and in the
    /// inventory, but exact-name lookup does not see them (the real package finds them by
    /// exact name only through a live MCP client).
    pub fn add_group(&mut self, tools: Vec<Tool>) -> &mut Registry {
        tools.into_iter().for_each(|tool| self.index(tool));
        self
    }

    /// Records a tool under its display name (`_iter_active_named_tools`: an empty name
    /// is no display name) and keeps it.
    fn index(&mut self, tool: Tool) {
        if !tool.name().is_empty() {
            let key = normalise(tool.name());
            self.by_key.entry(key).or_default().push(self.tools.len());
            self.inventory.insert(tool.name().clone());
        }
        self.tools.push(tool);
    }

    /// Refuses calls to `name` (the permission deny-set).
    pub fn deny(&mut self, name: impl Into<PyStr>) -> &mut Registry {
        self.deny.insert(name.into());
        self
    }

    /// Whether `name` is in the deny-set.
    pub fn is_denied(&self, name: &PyStr) -> bool {
        self.deny.contains(name)
    }

    /// The first top-level tool named exactly `name`.
    pub(crate) fn exact(&self, name: &PyStr) -> Option<&Tool> {
        self.exact.get(name).map(|&i| &self.tools[i])
    }

    /// The tools whose normalised display name is `key`, in registration order.
    pub(crate) fn with_key<'r>(&'r self, key: &PyStr) -> impl Iterator<Item = &'r Tool> + use<'r> {
        let indices = self.by_key.get(key).map_or(&[][..], Vec::as_slice);
        indices.iter().map(|&i| &self.tools[i])
    }

    /// The tools added one by one (not in a group), in registration order: what an agent
    /// loop offers the model as tool schemas.
    pub fn offered(&self) -> impl Iterator<Item = &Tool> {
        self.offered.iter().map(|&i| &self.tools[i])
    }

    /// The display names, sorted by code point, each once.
    pub fn inventory(&self) -> impl Iterator<Item = &PyStr> {
        self.inventory.iter()
    }
}
