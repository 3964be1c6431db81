//! The tool registry: tools with declared parameters and a callable body, MCP-style groups,
//! and the permission deny-set.

use std::collections::HashSet;
use std::fmt;

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
    pub fn new<F>(name: impl Into<PyStr>, params: Vec<Param>, body: F) -> Result<Tool, String>
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

/// One registry entry: a tool, or a group of tools (an MCP server's tools).
#[derive(Debug)]
enum Entry {
    Tool(Tool),
    Group(Vec<Tool>),
}

/// The tools an agent dispatches to, in registration order, and the names it refuses.
#[derive(Debug, Default)]
pub struct Registry {
    entries: Vec<Entry>,
    deny: HashSet<PyStr>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Adds a tool.
    pub fn add(&mut self, tool: Tool) -> &mut Registry {
        self.entries.push(Entry::Tool(tool));
        self
    }

    /// Adds a group of tools, as an MCP container: its tools take part in repair and in the
    /// inventory, but exact-name lookup does not see them (the real package finds them by
    /// exact name only through a live MCP client).
    pub fn add_group(&mut self, tools: Vec<Tool>) -> &mut Registry {
        self.entries.push(Entry::Group(tools));
        self
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

    /// The top-level tools, in order: what exact-name lookup scans.
    pub(crate) fn direct_tools(&self) -> impl Iterator<Item = &Tool> {
        self.entries.iter().filter_map(|entry| match entry {
            Entry::Tool(tool) => Some(tool),
            Entry::Group(_) => None,
        })
    }

    /// Every tool with a display name, groups expanded, in order:
    /// `_iter_active_named_tools` (an empty name is no display name).
    pub(crate) fn named_tools(&self) -> impl Iterator<Item = &Tool> {
        self.entries
            .iter()
            .flat_map(|entry| match entry {
                Entry::Tool(tool) => std::slice::from_ref(tool),
                Entry::Group(tools) => tools.as_slice(),
            })
            .filter(|tool| !tool.name().is_empty())
    }
}
