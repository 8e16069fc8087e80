/**
 * The import closure of a Python program, as Python resolves it from one source root on
 * sys.path (the directory a program is run from, or the launcher directory's): the module,
 * the packages above it (their __init__.py runs first), and every repository module any of
 * them can import: `import a.b`, `from a import b` (b a submodule when a file says so),
 * relative imports, and imports inside functions, `if` and `try` blocks alike (a function's
 * import counts as soon as the function could run). Modules that are not under the root
 * (torch, numpy, the standard library) are the interpreter's, not the repository's.
 *
 * The statements are found by a small lexer (comments and string literals removed, bracketed
 * and backslash-continued lines joined), so an "import" in a docstring is not one. Strings
 * passed to __import__ or importlib are not followed: the programs import by statement.
 * Every directory of modules under the root must be a regular package (an __init__.py): a
 * namespace package would let an installed package of the same name take its place.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

export interface PyImport {
  /** Leading dots of a relative import (0: absolute). */
  readonly level: number;
  /** Dotted module name after the dots ("" for `from . import x`). */
  readonly module: string;
  /** Names of a from-import (`*` included); empty for `import a.b`. */
  readonly names: readonly string[];
}

const QUOTE = /['"]/;

/** The source with comments and string literals blanked (each string becomes `""`). */
export function stripStringsAndComments(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "#") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (QUOTE.test(c)) {
      const triple = text.startsWith(c.repeat(3), i);
      const end = triple ? c.repeat(3) : c;
      i += end.length;
      while (i < text.length && !text.startsWith(end, i) && (triple || text[i] !== "\n")) i += text[i] === "\\" ? 2 : 1;
      i += end.length;
      out += '""';
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Logical lines: backslash continuations and newlines inside brackets joined. */
function logicalLines(code: string): string[] {
  const lines: string[] = [];
  let depth = 0;
  let cur = "";
  for (let i = 0; i < code.length; i++) {
    const c = code[i]!;
    if (c === "\\" && code[i + 1] === "\n") {
      i++;
      cur += " ";
    } else if (c === "\n" && depth === 0) {
      lines.push(cur);
      cur = "";
    } else {
      if ("([{".includes(c)) depth++;
      if (")]}".includes(c)) depth = Math.max(0, depth - 1);
      cur += c === "\n" ? " " : c;
    }
  }
  lines.push(cur);
  return lines;
}

const COMPOUND = /^(?:if|elif|else|try|except|finally|with|for|while|def|class)\b[^:]*:\s*(\S.*)$/;
const IMPORT = /^import\s+(.+)$/;
const FROM = /^from\s+(\.*)\s*([\w.]*)\s+import\s+(.+)$/;

function statementImports(stmt: string): PyImport[] {
  const s = stmt.trim();
  const compound = COMPOUND.exec(s);
  if (compound) return statementImports(compound[1]!);
  const imp = IMPORT.exec(s);
  if (imp) return imp[1]!.split(",").map((part) => ({ level: 0, module: part.trim().split(/\s+/)[0]!, names: [] }));
  const from = FROM.exec(s);
  if (!from) return [];
  const names = from[3]!.replace(/[()]/g, " ").split(",").map((n) => n.trim().split(/\s+/)[0]!).filter((n) => n !== "");
  return [{ level: from[1]!.length, module: from[2]!, names }];
}

/** Every import statement of a Python source, in order. */
export function pythonImports(text: string): PyImport[] {
  return logicalLines(stripStringsAndComments(text)).flatMap((line) => line.split(";").flatMap(statementImports));
}

/** Resolves modules under one source root and follows their imports; caches per file. */
export class PythonImportResolver {
  private readonly imports = new Map<string, readonly PyImport[]>();

  constructor(
    readonly root: string,
    /** The import statements of a file (default: read and parse it; the source scanner answers from its memo). */
    private readonly importsIn: (file: string) => readonly PyImport[] = (file) => pythonImports(readFileSync(file, "utf8")),
  ) {}

  /** The file of a module (`a/b.py` or `a/b/__init__.py`), undefined when the root has none. */
  moduleFile(parts: readonly string[]): string | undefined {
    const base = join(this.root, ...parts);
    if (existsSync(`${base}.py`) && statSync(`${base}.py`).isFile()) return `${base}.py`;
    const init = join(base, "__init__.py");
    if (existsSync(init)) return init;
    if (existsSync(base) && statSync(base).isDirectory() && readdirSync(base).some((f) => f.endsWith(".py"))) {
      throw new Error(`${this.rel(base)} holds Python modules but no __init__.py: make it a package (a namespace package could be shadowed by an installed one)`);
    }
    return undefined;
  }

  private rel(path: string): string {
    return relative(this.root, path).split(sep).join("/");
  }

  /** The files importing module `parts` runs: each package above it, then the module. Undefined: not the repository's. */
  private chain(parts: readonly string[], from: string, required: boolean): string[] | undefined {
    const files: string[] = [];
    for (let i = 1; i <= parts.length; i++) {
      const f = this.moduleFile(parts.slice(0, i));
      if (f === undefined && i === 1 && !required) return undefined;
      if (f === undefined) throw new Error(`${from}: cannot resolve import '${parts.join(".")}' under ${this.root}`);
      files.push(f);
    }
    return files;
  }

  /** The module parts of a file under the root (`a/b/__init__.py` -> [a, b], package true). */
  private partsOf(file: string): { parts: string[]; pkg: boolean } {
    const segs = this.rel(file).replace(/\.py$/, "").split("/");
    const pkg = segs.at(-1) === "__init__";
    return { parts: pkg ? segs.slice(0, -1) : segs, pkg };
  }

  /** The repository files one import statement of `file` runs. */
  private resolve(file: string, imp: PyImport): string[] {
    const mod = imp.module === "" ? [] : imp.module.split(".");
    let base: string[] = [];
    if (imp.level > 0) {
      const { parts, pkg } = this.partsOf(file);
      const pkgParts = pkg ? parts : parts.slice(0, -1);
      if (imp.level - 1 > pkgParts.length) throw new Error(`${this.rel(file)}: relative import beyond the source root`);
      base = pkgParts.slice(0, pkgParts.length - (imp.level - 1));
    }
    const target = [...base, ...mod];
    const files = target.length === 0 ? [] : this.chain(target, this.rel(file), imp.level > 0);
    if (files === undefined) return [];
    for (const name of imp.names) {
      const sub = name === "*" ? undefined : this.moduleFile([...target, name]);
      if (sub !== undefined) files.push(sub);
    }
    return files;
  }

  private importsOf(file: string): readonly PyImport[] {
    let found = this.imports.get(file);
    if (found === undefined) this.imports.set(file, (found = this.importsIn(file)));
    return found;
  }

  /** Absolute paths of every repository file running module `name` (dotted) can execute, sorted. */
  closure(name: string): string[] {
    const start = this.chain(name.split("."), `module ${name}`, true)!;
    const seen = new Set<string>();
    const stack = [...start];
    while (stack.length > 0) {
      const file = stack.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const imp of this.importsOf(file)) stack.push(...this.resolve(file, imp));
    }
    return [...seen].sort();
  }
}
