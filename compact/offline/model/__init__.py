"""The offline model: a deterministic program that answers a Messages API request.

`reply.respond(request) -> response` is the whole interface; docs/DESIGN.md
("How the offline model reads and answers") walks through the modules.

Left out: HTTP, the API's rules, its context management and its bill
(`compact.offline.api`'s).
"""
