/**
 * `$(VAR)` references in env values, command and args, expanded as Kubernetes does
 * (third_party/forked/golang/expansion): a defined name is replaced by its value, an undefined one
 * stays as written, `$$` is a literal `$`, and a `$(` without its `)` is kept as is.
 */

/** The value of `name`, or undefined when no source defines it. */
type VarLookup = (name: string) => string | undefined;

/** A lookup over maps tried in order (the container's own variables first, then the services'). */
export function lookupIn(...sources: readonly ReadonlyMap<string, string>[]): VarLookup {
  return (name) => {
    for (const source of sources) {
      const value = source.get(name);
      if (value !== undefined) return value;
    }
    return undefined;
  };
}

export function expandVars(input: string, lookup: VarLookup): string {
  let out = "";
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== "$" || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const next = input[cursor + 1];
    if (next === "$") {
      out += "$";
      cursor += 1;
    } else if (next === "(") {
      const close = input.indexOf(")", cursor + 2);
      if (close < 0) {
        out += "$(";
        cursor += 1;
      } else {
        const name = input.slice(cursor + 2, close);
        out += lookup(name) ?? `$(${name})`;
        cursor = close;
      }
    } else {
      out += `$${next}`;
      cursor += 1;
    }
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}
