/**
 * How one watch event goes on the wire. JSON (also for a client that asked for YAML, which has no
 * streaming form): one `{"type", "object"}` document per line. Protobuf: a 4-byte big-endian
 * length, then the `k8s\0` envelope of a WatchEvent (typed with the resource's group version, as
 * kube-apiserver's versioning encoder writes it) whose object is a RawExtension holding the
 * object's own envelope.
 */
import { encodeEnveloped, encodeObject, watchEventMessage } from "../api/protobuf/envelope.ts";
import { apiVersionOf, type ResourceType } from "../api/resources.ts";
import { jsonMediaType, protobufWatchMediaType, type Serializer } from "./media-types.ts";

export interface WatchEncoder {
  contentType: string;
  frame(type: string, object: unknown): string | Uint8Array;
}

const frameLengthBytes = 4;

const jsonEncoder: WatchEncoder = {
  contentType: jsonMediaType,
  frame: (type, object) => `${JSON.stringify({ type, object })}\n`,
};

function protobufEncoder(resource: ResourceType): WatchEncoder {
  const eventType = { apiVersion: apiVersionOf(resource), kind: "WatchEvent" };
  return {
    contentType: protobufWatchMediaType,
    frame: (type, object) => {
      const event = encodeEnveloped(
        eventType,
        watchEventMessage(type, encodeObject(object as Record<string, unknown>)),
      );
      const frame = Buffer.alloc(frameLengthBytes + event.length);
      frame.writeUInt32BE(event.length, 0);
      frame.set(event, frameLengthBytes);
      return frame;
    },
  };
}

export function watchEncoderFor(serializer: Serializer, resource: ResourceType): WatchEncoder {
  return serializer === "protobuf" ? protobufEncoder(resource) : jsonEncoder;
}
