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


/**
 * A filled band between `lo` and `hi` (the caller sets fillStyle and alpha), one polygon per run of
 * finite values; merged to the widest extent per pixel column. Returns the points drawn.
 */
export function drawBand(ctx, geom, logY, xs, lo, hi, i0, i1) {
  const { left, top, x0, y1, sx, sy } = geom;
  const tr = (v) => (logY ? (v > 0 ? Math.log10(v) : NaN) : v);
  let cols = []; // [px, y of the upper edge, y of the lower edge]
  let count = 0;
  const flush = () => {
    if (cols.length === 1) {
      const [px, a, b] = cols[0];
      ctx.fillRect(px - 1, a, 2, Math.max(1, b - a));
    } else if (cols.length > 1) {
      ctx.beginPath();
      ctx.moveTo(cols[0][0], cols[0][1]);
      for (const c of cols) ctx.lineTo(c[0], c[1]);
      for (let k = cols.length - 1; k >= 0; k--) ctx.lineTo(cols[k][0], cols[k][2]);
      ctx.closePath();
      ctx.fill();
    }
    cols = [];
  };
  for (let i = i0; i < i1; i++) {
    const a = tr(lo[i]);
    const b = tr(hi[i]);
    if (!Number.isFinite(a) || !Number.isFinite(b)) {
      flush();
      continue;
    }
    count++;
    const px = Math.round(left + (xs[i] - x0) * sx);
    const up = top + (y1 - Math.max(a, b)) * sy;
    const down = top + (y1 - Math.min(a, b)) * sy;
    const last = cols[cols.length - 1];
    if (last && last[0] === px) {
      last[1] = Math.min(last[1], up);
      last[2] = Math.max(last[2], down);
    } else cols.push([px, up, down]);
  }
  flush();
  return count;
}

/** The index of `xs` (sorted) nearest to `v`, or -1 when empty. */
export function nearestIndex(xs, v) {
  if (!xs.length) return -1;
  let i = lowerBound(xs, v);
  if (i >= xs.length || (i > 0 && v - xs[i - 1] < xs[i] - v)) i--;
  return i;
}
