"""The offline model: a deterministic program that answers a Messages API request.

`reply.respond(request) -> response` is the whole interface. It reads only the
request it is given, and knows nothing of HTTP, the API's rules, its context
management or its bill; those are `compact.offline.api`'s. `compact/offline/__init__.py`
lists the modules in the order a request goes through them.
"""
