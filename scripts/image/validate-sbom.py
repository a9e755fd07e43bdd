"""Validates a CycloneDX JSON document against the CycloneDX schema of its specVersion, with the
CycloneDX project's own library (cyclonedx-python-lib's strict validator, which checks formats
too). Prints one line per problem, its JSON path first; exits 0 when there is none, 1 otherwise.

    .tools/venvs/deploy-tools/bin/python scripts/image/validate-sbom.py sbom.cdx.json

The environment comes from scripts/tools/install-python-tools.sh.
"""

import json
import sys

from cyclonedx.schema import SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator

text = open(sys.argv[1], encoding="utf-8").read()
version = SchemaVersion.from_version(json.loads(text)["specVersion"])
problems = JsonStrictValidator(version).validate_str(text, all_errors=True) or []
count = 0
for problem in problems:
    count += 1
    print(f"{problem.data.json_path}: {problem.data.message}")
sys.exit(1 if count else 0)
