/**
 * Protobuf codec benchmarks: encoding and decoding a Pod in Kubernetes' protobuf, beside
 * JSON.stringify and JSON.parse of the same pod (the baseline the API server used before), and the
 * size of each form.
 */
import { decodeObject, encodeObject } from "../src/api/protobuf/envelope.ts";
import { benchPod } from "./fixtures.ts";
import { type Row, ratePerSecond } from "./measure.ts";

const pods = 20_000;

export async function protobufBenchmarks(): Promise<Row[]> {
  const objects = Array.from({ length: pods }, (_, i) => ({ apiVersion: "v1", kind: "Pod", ...benchPod(i) }));
  const texts = objects.map((pod) => JSON.stringify(pod));
  const encoded = objects.map((pod) => encodeObject(pod));
  const jsonEncode = await ratePerSecond(pods, () => {
    for (const pod of objects) JSON.stringify(pod);
  });
  const protobufEncode = await ratePerSecond(pods, () => {
    for (const pod of objects) encodeObject(pod);
  });
  const jsonDecode = await ratePerSecond(pods, () => {
    for (const text of texts) JSON.parse(text);
  });
  const protobufDecode = await ratePerSecond(pods, () => {
    for (const bytes of encoded) decodeObject(bytes);
  });
  const jsonBytes = Buffer.byteLength(texts[0] ?? "");
  const protobufBytes = encoded[0]?.length ?? 0;
  return [
    row("encode a pod", protobufEncode, "pods/s", "JSON.stringify", jsonEncode, "higher"),
    row("decode a pod", protobufDecode, "pods/s", "JSON.parse", jsonDecode, "higher"),
    row("bytes of a pod", protobufBytes, "bytes", "JSON text", jsonBytes, "lower"),
  ];
}

function row(
  measure: string,
  value: number,
  unit: string,
  baselineName: string,
  baseline: number,
  better: Row["better"],
): Row {
  return { group: "protobuf", measure, value, unit, baselineName, baseline, better };
}
