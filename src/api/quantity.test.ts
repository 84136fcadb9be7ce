import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  formatQuantity,
  parseQuantity,
  Quantity,
  QuantityParseError,
  quantityFormatMessage,
  quantitySuffixMessage,
} from "./quantity.ts";

describe("parseQuantity", () => {
  it("reads binary suffixes as powers of two", () => {
    assert.equal(parseQuantity("1Gi").toBytes(), 1073741824n);
    assert.equal(parseQuantity("1Ki").toBytes(), 1024n);
    assert.equal(parseQuantity("2Ti").toBytes(), 2n * 1024n ** 4n);
    assert.equal(parseQuantity("1Gi").format, "BinarySI");
  });

  it("reads decimal suffixes as powers of ten", () => {
    assert.equal(parseQuantity("500M").toBytes(), 500_000_000n);
    assert.equal(parseQuantity("1k").toBytes(), 1000n);
    assert.equal(parseQuantity("3G").toBytes(), 3_000_000_000n);
    assert.equal(parseQuantity("500M").format, "DecimalSI");
  });

  it("reads fractions exactly", () => {
    assert.equal(parseQuantity("1.5Gi").toBytes(), 1610612736n);
    assert.equal(parseQuantity("0.5").toMilli(), 500n);
    assert.equal(parseQuantity(".5").toMilli(), 500n);
  });

  it("reads milli-units, so 100m is a tenth", () => {
    const tenth = parseQuantity("100m");
    assert.equal(tenth.toMilli(), 100n);
    assert.equal(tenth.compare(parseQuantity("0.1")), 0);
  });

  it("reads exponent forms", () => {
    assert.equal(parseQuantity("1e3").toBytes(), 1000n);
    assert.equal(parseQuantity("1E6").toBytes(), 1_000_000n);
    assert.equal(parseQuantity("12e-1").toMilli(), 1200n);
    assert.equal(parseQuantity("1e3").format, "DecimalExponent");
  });

  it("reads zero and signs", () => {
    assert.equal(parseQuantity("0").isZero(), true);
    assert.equal(parseQuantity("-1Gi").toBytes(), -1073741824n);
    assert.equal(parseQuantity("+5").toBytes(), 5n);
  });

  it("rounds amounts below a nano-unit up, as Kubernetes does", () => {
    assert.equal(parseQuantity("1.5n").nanos, 2n);
    assert.equal(parseQuantity("-1.5n").nanos, -2n);
  });

  it("caps binary amounts at the largest int64, as Kubernetes does", () => {
    assert.equal(parseQuantity("16Ei").toBytes(), 2n ** 63n - 1n);
  });

  for (const text of ["1GB", "abc", "1.2.3", " 1Gi", "1Gi ", "", "1/2"]) {
    it(`refuses ${JSON.stringify(text)} with Kubernetes' message`, () => {
      assert.throws(
        () => parseQuantity(text),
        (error: unknown) => {
          assert.ok(error instanceof QuantityParseError);
          assert.equal(error.message, quantityFormatMessage);
          return true;
        },
      );
    });
  }

  it("tolerates what Kubernetes' parser tolerates: a missing number is zero", () => {
    assert.equal(parseQuantity("Gi").isZero(), true);
    assert.equal(parseQuantity("1.").toBytes(), 1n);
  });

  it("quotes the regular expression Kubernetes uses", () => {
    assert.equal(
      quantityFormatMessage,
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
  });

  for (const text of ["1K", "1mi", "1e", "2Kii"]) {
    it(`refuses the unknown suffix in ${JSON.stringify(text)}`, () => {
      assert.throws(() => parseQuantity(text), { message: quantitySuffixMessage });
    });
  }
});

describe("Quantity", () => {
  it("rounds fractional units away from zero in toBytes, as Kubernetes' Value()", () => {
    assert.equal(parseQuantity("100m").toBytes(), 1n);
    assert.equal(parseQuantity("1.1").toBytes(), 2n);
    assert.equal(parseQuantity("-100m").toBytes(), -1n);
    assert.equal(parseQuantity("1.5n").toMilli(), 1n);
  });

  it("compares by amount whatever the notation", () => {
    assert.equal(parseQuantity("1Gi").compare(parseQuantity("1073741824")), 0);
    assert.equal(parseQuantity("1G").compare(parseQuantity("1Gi")), -1);
    assert.equal(Quantity.compare(parseQuantity("2Gi"), parseQuantity("1500Mi")), 1);
    assert.equal(parseQuantity("1Gi").equals(parseQuantity("1024Mi")), true);
  });

  it("adds and subtracts exactly, keeping the first operand's format", () => {
    const sum = parseQuantity("1Gi").add(parseQuantity("512Mi"));
    assert.equal(sum.toString(), "1536Mi");
    assert.equal(parseQuantity("0").add(parseQuantity("1Gi")).format, "BinarySI");
    assert.equal(parseQuantity("1Gi").sub(parseQuantity("1Gi")).isZero(), true);
    assert.equal(parseQuantity("100m").add(parseQuantity("200m")).toString(), "300m");
  });

  it("builds from bytes and milli-units", () => {
    assert.equal(Quantity.fromBytes(5n * 1024n ** 3n).toString(), "5Gi");
    assert.equal(Quantity.fromMilli(250n).toString(), "250m");
    assert.equal(JSON.stringify({ storage: Quantity.fromBytes(1024n) }), '{"storage":"1Ki"}');
  });
});

describe("formatQuantity", () => {
  const canonical: ReadonlyArray<[string, string]> = [
    ["1Gi", "1Gi"],
    ["500M", "500M"],
    ["1.5Gi", "1536Mi"],
    ["0.5Gi", "512Mi"],
    ["100m", "100m"],
    ["0.5", "500m"],
    ["1e3", "1e3"],
    ["1.5e3", "1500"],
    ["1000", "1k"],
    ["1024", "1024"],
    ["1.5G", "1500M"],
    ["0", "0"],
    ["0Gi", "0"],
    ["-1Gi", "-1Gi"],
    ["512Ki", "512Ki"],
    ["1.1Ki", "1126400m"],
    ["100Ki", "100Ki"],
    ["1073741824", "1073741824"],
  ];
  for (const [input, expected] of canonical) {
    it(`prints ${input} as ${expected}`, () => {
      assert.equal(formatQuantity(parseQuantity(input)), expected);
    });
  }

  it("prints small binary amounts in decimal, where a binary suffix would not fit", () => {
    assert.equal(Quantity.fromBytes(512n).toString(), "512");
  });
});
