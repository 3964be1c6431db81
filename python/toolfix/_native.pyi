from typing import Any, Optional

__version__: str

def recover_tool_calls_from_text(
    content: Optional[str],
    tools: Optional[list[dict[str, Any]]],
    adapter: str = "ollama",
    profile: str = "praisonai",
    dialect: Optional[str] = None,
) -> Optional[list[dict[str, Any]]]: ...
def format_exact(
    function_name: Any,
    tool_result: Any,
    tool_call_id: Any = None,
    adapter: str = "ollama",
    profile: str = "praisonai",
) -> Optional[dict[str, Any]]: ...
def main(argv: list[str]) -> int: ...

class StreamSalvager:
    def __init__(
        self,
        tools: Optional[list[dict[str, Any]]],
        adapter: str = "ollama",
        profile: str = "strict",
    ) -> None: ...
    def feed(self, chunk: str) -> list[tuple[str, Any]]: ...
    def finish(self) -> list[tuple[str, Any]]: ...
