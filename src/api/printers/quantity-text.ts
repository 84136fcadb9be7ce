/** A stored quantity in its canonical form (`1024Mi` → `1Gi`), as Quantity.String() prints it. */
import { formatQuantity, parseQuantity } from "../quantity.ts";

export function quantityText(text: string | undefined): string {
  if (text === undefined || text === "") return "";
  try {
    return formatQuantity(parseQuantity(text));
  } catch (error) {
    // Validation refuses such text on write, so only an object stored before validation shows it raw.
    if (error instanceof Error) return text;
    throw error;
  }
}
