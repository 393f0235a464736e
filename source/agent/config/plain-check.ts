/**
 * The part of JSON Schema that scripts/config-schema.mjs writes for the config file's plain
 * fields, and a check of a value against it that reads each keyword the way zod does (string
 * length in UTF-16 units, finite numbers, z.url()'s rule). It answers only "surely valid": false
 * means "ask zod", which also words the problem. A keyword it does not know is a false.
 */
export type JsonSchema = {
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';
  enum?: readonly unknown[];
  const?: unknown;
  anyOf?: readonly JsonSchema[];
  minLength?: number;
  maxLength?: number;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  properties?: Readonly<Record<string, JsonSchema>>;
  required?: readonly string[];
  additionalProperties?: JsonSchema | boolean;
  propertyNames?: JsonSchema;
  items?: JsonSchema;
};

const KEYWORDS = new Set(['type', 'enum', 'const', 'anyOf', 'minLength', 'maxLength', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'properties', 'required', 'additionalProperties', 'propertyNames', 'items']);

export function plainlyValid(schema: JsonSchema, value: unknown): boolean {
  const keywords = Object.keys(schema);
  // {} is a loose object's word on other keys: anything goes, and stays as it is.
  if (keywords.length === 0) return true;
  if (keywords.some(keyword => !KEYWORDS.has(keyword))) return false;
  if (schema.anyOf && !schema.anyOf.some(option => plainlyValid(option, value))) return false;
  if (schema.enum && !schema.enum.includes(value)) return false;
  if ('const' in schema && schema.const !== value) return false;
  switch (schema.type) {
    case undefined:
      return schema.anyOf !== undefined;
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string' && stringOk(schema, value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) && numberOk(schema, value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) && numberOk(schema, value);
    case 'array':
      return Array.isArray(value) && schema.items !== undefined && value.every(item => plainlyValid(schema.items!, item));
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value) && objectOk(schema, value as Record<string, unknown>);
    default:
      return false;
  }
}

function stringOk(schema: JsonSchema, value: string): boolean {
  if (schema.minLength !== undefined && value.length < schema.minLength) return false;
  if (schema.maxLength !== undefined && value.length > schema.maxLength) return false;
  if (schema.format === undefined) return true;
  // z.url(): what URL can parse once trimmed, and it hands back the value trimmed and without
  // tabs and newlines. Only a value that needs neither is passed on as it is.
  return schema.format === 'uri' && value === value.trim() && !/[\t\n\r]/.test(value) && URL.canParse(value);
}

function numberOk(schema: JsonSchema, value: number): boolean {
  return (
    (schema.minimum === undefined || value >= schema.minimum) &&
    (schema.maximum === undefined || value <= schema.maximum) &&
    (schema.exclusiveMinimum === undefined || value > schema.exclusiveMinimum) &&
    (schema.exclusiveMaximum === undefined || value < schema.exclusiveMaximum)
  );
}

function objectOk(schema: JsonSchema, value: Record<string, unknown>): boolean {
  const properties = schema.properties ?? {};
  if (!(schema.required ?? []).every(key => Object.hasOwn(value, key))) return false;
  for (const [key, item] of Object.entries(value)) {
    if (key === '__proto__') return false;
    if (schema.propertyNames && !plainlyValid(schema.propertyNames, key)) return false;
    const known = Object.hasOwn(properties, key) ? properties[key]! : schema.additionalProperties;
    // No word on other keys (zod's default drops them): only zod knows what the value becomes.
    if (known === undefined || known === false) return false;
    if (known !== true && !plainlyValid(known, item)) return false;
  }
  return true;
}
