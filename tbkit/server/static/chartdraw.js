// Drawing primitives of the line chart: binary search, a decimated polyline, NaN/inf markers.

/** The first index of sorted `a` whose value is >= v. */
export function lowerBound(a, v) {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One polyline, decimated to first/min/max/last per pixel column. Returns finite points seen. */
export function drawPolyline(ctx, geom, logY, xs, ys, i0, i1) {
  const { left, top, x0, y1, sx, sy } = geom;
  let col = NaN;
  let first = 0;
  let mn = 0;
  let mx = 0;
  let last = 0;
  let down = false;
  let segCols = 0;
  let count = 0;
  ctx.beginPath();
  const flush = () => {
    if (col !== col) return; // NaN: nothing pending
    if (down) ctx.lineTo(col, first);
    else ctx.moveTo(col, first);
    if (mn !== first) ctx.lineTo(col, mn);
    if (mx !== mn) ctx.lineTo(col, mx);
    if (last !== mx) ctx.lineTo(col, last);
    down = true;
    segCols++;
  };
  const endSegment = () => {
    flush();
    if (segCols === 1) ctx.rect(col - 1.5, first - 1.5, 3, 3); // a lone point stays visible
    col = NaN;
    down = false;
    segCols = 0;
  };
  for (let i = i0; i < i1; i++) {
    let v = ys[i];
    if (logY) v = v > 0 ? Math.log10(v) : NaN;
    if (v !== v || v === Infinity || v === -Infinity) {
      endSegment();
      continue;
    }
    count++;
    const px = Math.round(left + (xs[i] - x0) * sx);
    const py = top + (y1 - v) * sy;
    if (px !== col) {
      flush();
      col = px;
      first = mn = mx = last = py;
    } else {
      if (py < mn) mn = py;
      if (py > mx) mx = py;
      last = py;
    }
  }
  endSegment();
  ctx.stroke();
  return count;
}

/** NaN: a small ×at the bottom; +inf: ▲ at the top; −inf: ▼ at the bottom. */
export function drawMarkers(ctx, geom, s, i0, i1) {
  if (!s.nf.length) return;
  const { left, top, ph, x0, sx } = geom;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  for (const [i, kind] of s.nf) {
    if (i < i0 || i >= i1) continue;
    const px = left + (s.x[i] - x0) * sx;
    if (kind === "inf") {
      ctx.moveTo(px - 4, top + 7);
      ctx.lineTo(px + 4, top + 7);
      ctx.lineTo(px, top);
      ctx.closePath();
    } else if (kind === "-inf") {
      ctx.moveTo(px - 4, top + ph - 7);
      ctx.lineTo(px + 4, top + ph - 7);
      ctx.lineTo(px, top + ph);
      ctx.closePath();
    } else {
      const y = top + ph - 5;
      ctx.moveTo(px - 3.5, y - 3.5);
      ctx.lineTo(px + 3.5, y + 3.5);
      ctx.moveTo(px + 3.5, y - 3.5);
      ctx.lineTo(px - 3.5, y + 3.5);
    }
  }
  ctx.stroke();
}

