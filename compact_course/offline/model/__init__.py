"""The offline model: a deterministic program that answers a Messages API request with
`reply.respond(request) -> response`; docs/DESIGN.md walks through its modules.

Left out: HTTP, the API's rules, its context management and its bill (`compact_course.offline.api`'s).
"""
