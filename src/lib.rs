//! toolfix: making LLM tool calls that go wrong safe and repairable, and proving it.

pub mod py;
