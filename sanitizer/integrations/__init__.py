"""Adapters for agent frameworks, one module per framework, each behind its own optional extra.

- `sanitizer.integrations.langchain` (`pip install 'sanitizer[langchain]'`): `sanitize_messages`
  and `SanitizingSummarizationMiddleware` for LangChain / LangGraph.
- `sanitizer.integrations.litellm` (`[litellm]`): `SanitizerCallback`, a LiteLLM `CustomLogger`.
- `sanitizer.integrations.openai_agents` (`[openai-agents]`): `sanitize_model_input`,
  `SanitizeFilter` and `sanitize_handoff` for the OpenAI Agents SDK.
- `sanitizer.integrations.pydantic_ai` (`[pydantic-ai]`): `sanitize_history`, a history processor.
- `sanitizer.integrations.hermes` (`[hermes]`): a Hermes Agent context engine (`sanitize hermes-plugin DIR`).
- `sanitizer.integrations.claude_code`: `sanitize hook claude-code`, PreCompact / SessionStart hooks.

This package imports nothing optional: import the module of the framework you use.
"""
