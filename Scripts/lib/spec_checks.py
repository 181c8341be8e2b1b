"""Checks shared by Scripts/validate-openapi and Scripts/validate-asyncapi: a YAML loader that
refuses duplicate keys, local `$ref` resolution, and examples validated against their schemas."""

import yaml
from jsonschema import FormatChecker


class Document:
  """A YAML document read strictly; `problems` collects what is wrong with it."""

  def __init__(self, path):
    self.path = path
    self.problems = []
    problems = self.problems

    # Plain PyYAML keeps the last of two equal keys silently; this loader reports them.
    class StrictLoader(yaml.SafeLoader):
      pass

    def construct_mapping(loader, node, deep=False):
      seen = set()
      for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
          problems.append(f"duplicate key {key!r} at line {key_node.start_mark.line + 1}")
        seen.add(key)
      return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)

    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
    with open(path, encoding="utf-8") as handle:
      self.doc = yaml.load(handle, Loader=StrictLoader)  # YAMLError is the caller's to report

  @staticmethod
  def parts(pointer):
    """The unescaped parts of a local JSON pointer (`#/a/b~1c` -> ["a", "b/c"])."""
    return [p.replace("~1", "/").replace("~0", "~") for p in pointer.lstrip("#/").split("/")]

  def target(self, pointer):
    """The node a local pointer names, or None when it does not resolve."""
    node = self.doc
    for part in self.parts(pointer):
      if isinstance(node, dict) and part in node:
        node = node[part]
      else:
        return None
    return node

  def deref(self, node):
    """`node`, or what its `$ref` chain ends at (the last node that resolves)."""
    while isinstance(node, dict) and isinstance(node.get("$ref"), str):
      target = self.target(node["$ref"])
      if target is None:
        return node
      node = target
    return node

  def check_refs(self):
    """Reports every `$ref` that is external or does not resolve, wherever it stands."""

    def walk(node, where):
      if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
          if not ref.startswith("#/"):
            self.problems.append(f"{where}: external $ref {ref} is not allowed")
          elif self.target(ref) is None:
            self.problems.append(f"{where}: $ref {ref} does not resolve")
        for key, value in node.items():
          walk(value, f"{where}/{str(key).replace('~', '~0').replace('/', '~1')}")
      elif isinstance(node, list):
        for index, value in enumerate(node):
          walk(value, f"{where}/{index}")

    walk(self.doc, "#")

  def check_example(self, validator_class, schema_pointer, example, where):
    """Reports where `example` breaks the schema at `schema_pointer` (refs inside it resolve
    against the whole document)."""
    root = dict(self.doc)
    root["$ref"] = schema_pointer
    validator = validator_class(root, format_checker=FormatChecker())
    for error in validator.iter_errors(example):
      location = "/".join(str(part) for part in error.absolute_path) or "(root)"
      self.problems.append(f"{where}: example invalid at {location}: {error.message}")
