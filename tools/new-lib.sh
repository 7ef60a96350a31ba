#!/usr/bin/env bash
# Scaffolds a platform library: tools/new-lib.sh <dir-under-libs> <project-name> <tags-json>
set -euo pipefail
dir="libs/$1"; name="$2"; tags="$3"
mkdir -p "$dir/src"
depth=$(echo "$dir" | awk -F/ '{print NF}'); up=$(printf '../%.0s' $(seq 1 "$depth"))
cat > "$dir/project.json" <<JSON
{
  "name": "$name",
  "\$schema": "${up}node_modules/nx/schemas/project-schema.json",
  "sourceRoot": "$dir/src",
  "projectType": "library",
  "tags": $tags,
  "targets": {
    "lint": { "executor": "@nx/eslint:lint" },
    "test": { "executor": "@nx/jest:jest", "options": { "jestConfig": "$dir/jest.config.js", "passWithNoTests": false } }
  }
}
JSON
cat > "$dir/jest.config.js" <<TS
module.exports = {
  displayName: '$name',
  preset: '${up}jest.preset.js',
  rootDir: '.',
};
TS
cat > "$dir/tsconfig.json" <<TS
{ "extends": "${up}tsconfig.base.json", "include": ["src/**/*.ts", "jest.config.js"] }
TS
