// A link as a QR code, drawn as one SVG path from uqr's module matrix (no markup strings).
import { encode } from 'uqr';

export function QrCode({ text, size = 176 }: { text: string; size?: number }) {
  const { data } = encode(text, { ecc: 'M', border: 2 });
  const n = data.length;
  let d = '';
  data.forEach((row, y) =>
    row.forEach((on, x) => {
      if (on) d += `M${x} ${y}h1v1h-1z`;
    }),
  );
  return (
    <svg
      class="share-qr"
      width={size}
      height={size}
      viewBox={`0 0 ${n} ${n}`}
      shape-rendering="crispEdges"
      role="img"
      aria-label="QR code of the link"
    >
      <rect width={n} height={n} fill="#fff" />
      <path d={d} fill="#000" />
    </svg>
  );
}
