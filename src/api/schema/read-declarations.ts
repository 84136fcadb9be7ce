/**
 * Reads the `kubernetes-types` declaration files with the TypeScript compiler API and turns each
 * exported interface into an OpenAPI definition: properties with their types and doc comments,
 * and the required fields. Development-time only (the generator uses it; the server reads the
 * committed output), because `typescript` is a development dependency.
 */
import { createRequire } from "node:module";
import { dirname, relative } from "node:path";
import ts from "typescript";
import { customResourceGroups, customResourcePrefix } from "./kind-definitions.ts";
import type { GroupVersionKind, OpenApiDefinition, OpenApiSchema } from "./openapi-types.ts";

/** Where kvol's declarations of custom resources live (`crd-types/snapshot/v1.ts`). */
const customResourceRoot = new URL("../crd-types/", import.meta.url).pathname;

/** `snapshot/v1` → `io.k8s.storage.snapshot.v1`. */
function customResourceDefinitionPrefix(modulePath: string): string {
  const [short = "", version = ""] = modulePath.split("/");
  const group = customResourceGroups[short];
  if (group === undefined) throw new Error(`crd-types/${modulePath}: no custom resource group is named ${short}`);
  return customResourcePrefix(group, version);
}

/** Where each declaration module's types live in Kubernetes' OpenAPI naming. */
function definitionPrefix(modulePath: string): string {
  if (modulePath === "meta/v1") return "io.k8s.apimachinery.pkg.apis.meta.v1";
  if (modulePath === "api/resource") return "io.k8s.apimachinery.pkg.api.resource";
  if (modulePath === "runtime") return "io.k8s.apimachinery.pkg.runtime";
  return `io.k8s.api.${modulePath.replaceAll("/", ".")}`;
}

const intOrStringDefinition = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";

/** The Go type has no TypeScript declaration (it is an inline `number | string`), so its text is Kubernetes'. */
const intOrStringDescription =
  "IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML marshalling and unmarshalling, it produces or consumes the inner type.  This allows you to have, for example, a JSON field that can accept a name or number.";

/** Aliases of `string` that Kubernetes serialises in a known format. */
const stringFormats: Readonly<Record<string, string>> = {
  "io.k8s.apimachinery.pkg.apis.meta.v1.Time": "date-time",
  "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": "date-time",
};

interface DeclarationReader {
  /** Every definition found, by OpenAPI name. */
  readonly definitions: ReadonlyMap<string, OpenApiDefinition>;
}

function packageRoot(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve("kubernetes-types/package.json"));
}

function documentation(symbol: ts.Symbol | undefined, checker: ts.TypeChecker): string | undefined {
  if (symbol === undefined) return undefined;
  const text = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
  return text === "" ? undefined : text;
}

/** The string literal a property is declared as (`apiVersion?: "v1"`), if it is one. */
function literalOf(declaration: ts.InterfaceDeclaration, field: string): string | undefined {
  for (const member of declaration.members) {
    if (!ts.isPropertySignature(member) || member.name.getText() !== field) continue;
    const type = member.type;
    if (type !== undefined && ts.isLiteralTypeNode(type) && ts.isStringLiteral(type.literal)) return type.literal.text;
  }
  return undefined;
}

/** Top-level kinds declare their apiVersion and kind as literals; nested types do not. */
function groupVersionKind(declaration: ts.InterfaceDeclaration): GroupVersionKind | undefined {
  const apiVersion = literalOf(declaration, "apiVersion");
  const kind = literalOf(declaration, "kind");
  if (apiVersion === undefined || kind === undefined) return undefined;
  const slash = apiVersion.indexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  return { group, version: apiVersion.slice(slash + 1), kind };
}

/** The element type of `T[]` or `Array<T>`. */
function arrayElement(type: ts.TypeNode): ts.TypeNode | undefined {
  if (ts.isArrayTypeNode(type)) return type.elementType;
  const isGenericArray = ts.isTypeReferenceNode(type) && type.typeName.getText() === "Array";
  return isGenericArray ? type.typeArguments?.[0] : undefined;
}

class Reader {
  readonly definitions = new Map<string, OpenApiDefinition>();
  private readonly checker: ts.TypeChecker;

  constructor(
    private readonly program: ts.Program,
    private readonly root: string,
  ) {
    this.checker = program.getTypeChecker();
  }

  readAll(): void {
    for (const file of this.program.getSourceFiles()) {
      const prefix = this.filePrefix(file.fileName);
      if (prefix === undefined) continue;
      for (const statement of file.statements) this.readStatement(statement, prefix);
    }
    this.definitions.set(intOrStringDefinition, {
      description: intOrStringDescription,
      type: "string",
      format: "int-or-string",
    });
  }

  /** The OpenAPI prefix of a declaration file's types; undefined for files that declare none (the TypeScript lib). */
  private filePrefix(fileName: string): string | undefined {
    if (fileName.startsWith(customResourceRoot)) {
      return customResourceDefinitionPrefix(relative(customResourceRoot, fileName).replace(/\.ts$/, ""));
    }
    if (!fileName.startsWith(this.root)) return undefined;
    return definitionPrefix(relative(this.root, fileName).replace(/\.d\.ts$/, ""));
  }

  private definitionName(declaration: ts.Declaration): string {
    const file = declaration.getSourceFile();
    const name = ts.getNameOfDeclaration(declaration)?.getText(file) ?? "";
    const prefix = this.filePrefix(file.fileName);
    if (prefix === undefined) throw new Error(`${file.fileName}: ${name} is not a Kubernetes declaration`);
    return `${prefix}.${name}`;
  }

  private readStatement(statement: ts.Statement, prefix: string): void {
    if (ts.isInterfaceDeclaration(statement)) {
      const name = `${prefix}.${statement.name.text}`;
      this.definitions.set(name, this.readInterface(statement, name));
    } else if (ts.isTypeAliasDeclaration(statement) && statement.type.kind === ts.SyntaxKind.StringKeyword) {
      const name = `${prefix}.${statement.name.text}`;
      const description = documentation(this.checker.getSymbolAtLocation(statement.name), this.checker);
      const format = stringFormats[name];
      this.definitions.set(name, {
        ...(description === undefined ? {} : { description }),
        type: "string",
        ...(format === undefined ? {} : { format }),
      });
    }
  }

  private readInterface(declaration: ts.InterfaceDeclaration, name: string): OpenApiDefinition {
    const description = documentation(this.checker.getSymbolAtLocation(declaration.name), this.checker);
    const properties: Record<string, OpenApiSchema> = {};
    const required: string[] = [];
    for (const member of declaration.members) {
      if (!ts.isPropertySignature(member) || member.type === undefined) {
        throw new Error(`${name}: member ${member.getText()} is not a typed property`);
      }
      const field = member.name.getText();
      const fieldDescription = documentation(this.checker.getSymbolAtLocation(member.name), this.checker);
      properties[field] = {
        ...(fieldDescription === undefined ? {} : { description: fieldDescription }),
        ...this.schemaOf(member.type, `${name}.${field}`),
      };
      if (member.questionToken === undefined) required.push(field);
    }
    const kind = groupVersionKind(declaration);
    return {
      ...(description === undefined ? {} : { description }),
      type: "object",
      ...(Object.keys(properties).length === 0 ? {} : { properties }),
      ...(required.length === 0 ? {} : { required }),
      ...(kind === undefined ? {} : { "x-kubernetes-group-version-kind": [kind] }),
    };
  }

  private schemaOf(type: ts.TypeNode, where: string): OpenApiSchema {
    switch (type.kind) {
      case ts.SyntaxKind.StringKeyword:
        return { type: "string" };
      case ts.SyntaxKind.NumberKeyword:
        return { type: "integer" };
      case ts.SyntaxKind.BooleanKeyword:
        return { type: "boolean" };
    }
    if (ts.isLiteralTypeNode(type) && ts.isStringLiteral(type.literal)) return { type: "string" };
    if (ts.isUnionTypeNode(type) && this.isNumberOrString(type))
      return { $ref: `#/definitions/${intOrStringDefinition}` };
    if (ts.isTypeLiteralNode(type)) return this.mapSchema(type, where);
    const element = arrayElement(type);
    if (element !== undefined) return { type: "array", items: this.schemaOf(element, `${where}[]`) };
    if (ts.isTypeReferenceNode(type)) return { $ref: `#/definitions/${this.referencedName(type, where)}` };
    throw new Error(`${where}: cannot express the type ${type.getText()} in OpenAPI`);
  }

  private isNumberOrString(type: ts.UnionTypeNode): boolean {
    const kinds = type.types.map((member) => member.kind).sort();
    return kinds.join() === [ts.SyntaxKind.NumberKeyword, ts.SyntaxKind.StringKeyword].sort().join();
  }

  /** `{ [name: string]: T }` is a map; nothing else in the declarations is an inline object. */
  private mapSchema(type: ts.TypeLiteralNode, where: string): OpenApiSchema {
    const [signature, ...rest] = type.members;
    if (signature === undefined || rest.length > 0 || !ts.isIndexSignatureDeclaration(signature)) {
      throw new Error(`${where}: an inline object type that is not a string-keyed map`);
    }
    return { type: "object", additionalProperties: this.schemaOf(signature.type, `${where}{}`) };
  }

  private referencedName(type: ts.TypeReferenceNode, where: string): string {
    let symbol = this.checker.getSymbolAtLocation(type.typeName);
    if (symbol !== undefined && symbol.flags & ts.SymbolFlags.Alias) symbol = this.checker.getAliasedSymbol(symbol);
    const declaration = symbol?.declarations?.[0];
    if (declaration === undefined) throw new Error(`${where}: cannot resolve the type ${type.getText()}`);
    return this.definitionName(declaration);
  }
}

/**
 * Reads the declaration modules named (`core/v1`, `apps/v1`) of the installed `kubernetes-types`,
 * and every module they import.
 */
export function readKubernetesTypes(
  modules: readonly string[],
  customResourceModules: readonly string[] = [],
): DeclarationReader {
  const root = packageRoot();
  const roots = [
    ...modules.map((module) => `${root}/${module}.d.ts`),
    ...customResourceModules.map((module) => `${customResourceRoot}${module}.ts`),
  ];
  const program = ts.createProgram(roots, { noEmit: true, types: [] });
  const reader = new Reader(program, `${root}/`);
  reader.readAll();
  return reader;
}
