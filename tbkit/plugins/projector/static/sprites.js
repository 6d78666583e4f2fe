// Sprite thumbnails: one image holding a thumbnail per point, row by row.
import { el } from "../../util.js";

/**
 * Load the sprite; resolves to {image, url, width, height, perRow} (width/height: one thumbnail).
 * `url` is an object URL of the fetched image: `src` names the run and the tensor (data), and
 * the thumbnails' styles hold `url`, so no attribute of the page comes from data.
 */
export async function loadSprite(src, width, height) {
  const response = await fetch(src);
  if (!response.ok) throw new Error("could not load the sprite image");
  const objectUrl = URL.createObjectURL(await response.blob());
  return new Promise((resolve, reject) => {
    const image = new Image();
    image.addEventListener("load", () =>
      resolve({ image, url: objectUrl, width, height, perRow: Math.max(1, Math.floor(image.naturalWidth / width)) }),
    );
    image.addEventListener("error", () => reject(new Error("could not load the sprite image")));
    image.src = objectUrl;
  });
}

/** A thumbnail element of point `i`, scaled to fit `size` pixels. */
export function thumbnail(sprite, i, size = 48) {
  const scale = size / Math.max(sprite.width, sprite.height);
  const col = i % sprite.perRow;
  const row = Math.floor(i / sprite.perRow);
  const w = sprite.width * scale;
  const h = sprite.height * scale;
  const node = el("div", { class: "pj-thumb", dataset: { index: String(i) } });
  node.style.width = `${w}px`;
  node.style.height = `${h}px`;
  node.style.backgroundImage = `url("${sprite.url}")`;
  node.style.backgroundSize = `${sprite.image.naturalWidth * scale}px ${sprite.image.naturalHeight * scale}px`;
  node.style.backgroundPosition = `${-col * w}px ${-row * h}px`;
  return node;
}

/** Data URLs of the thumbnails of points `indices` (for plotly layout images), cut from the sprite once. */
export function thumbnailUrls(sprite, indices, cache) {
  const canvas = document.createElement("canvas");
  canvas.width = sprite.width;
  canvas.height = sprite.height;
  const g = canvas.getContext("2d");
  const out = [];
  for (const i of indices) {
    if (!cache.has(i)) {
      g.clearRect(0, 0, sprite.width, sprite.height);
      const sx = (i % sprite.perRow) * sprite.width;
      const sy = Math.floor(i / sprite.perRow) * sprite.height;
      g.drawImage(sprite.image, sx, sy, sprite.width, sprite.height, 0, 0, sprite.width, sprite.height);
      cache.set(i, canvas.toDataURL("image/png"));
    }
    out.push(cache.get(i));
  }
  return out;
}
