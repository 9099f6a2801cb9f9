// Great-circle geometry on a spherical Earth (haversine), shared by every plugin that measures distances,
// and the latitude/longitude boxes that bound a radius (for R*Tree queries).

/** The IUGG mean Earth radius. */
export const EARTH_RADIUS_KM = 6371.0088;
export const KM_PER_MILE = 1.609344;

const rad = (d: number) => (d * Math.PI) / 180;

export interface Point { lat: number; lng: number }

export function distanceKm(a: Point, b: Point): number {
  const dLat = rad(b.lat - a.lat);
  const dLng = rad(b.lng - a.lng);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The initial bearing from a to b, degrees clockwise from true north, 0 to under 360. */
export function initialBearing(a: Point, b: Point): number {
  const y = Math.sin(rad(b.lng - a.lng)) * Math.cos(rad(b.lat));
  const x = Math.cos(rad(a.lat)) * Math.sin(rad(b.lat)) - Math.sin(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.cos(rad(b.lng - a.lng));
  return ((Math.atan2(y, x) * 180) / Math.PI + 360) % 360;
}

/** The initial bearing rounded to a whole degree (0-359). */
export const bearingDeg = (a: Point, b: Point) => Math.round(initialBearing(a, b)) % 360;

const POINTS = ["N", "NNE", "NE", "ENE", "E", "ESE", "SE", "SSE", "S", "SSW", "SW", "WSW", "W", "WNW", "NW", "NNW"];

/** The nearest of the 16 compass points. */
export const compassPoint = (bearing: number) => POINTS[Math.round(bearing / 22.5) % 16];

export interface Box { minLat: number; maxLat: number; minLng: number; maxLng: number }

/** Boxes covering every point within radiusKm of p: two when the circle crosses the antimeridian. */
export function boxesAround(p: Point, radiusKm: number): Box[] {
  const dLat = (radiusKm / EARTH_RADIUS_KM) * (180 / Math.PI);
  const minLat = Math.max(-90, p.lat - dLat);
  const maxLat = Math.min(90, p.lat + dLat);
  if (minLat === -90 || maxLat === 90) return [{ minLat, maxLat, minLng: -180, maxLng: 180 }];
  const dLng = dLat / Math.cos(rad(Math.max(Math.abs(minLat), Math.abs(maxLat))));
  if (dLng >= 180) return [{ minLat, maxLat, minLng: -180, maxLng: 180 }];
  const lo = p.lng - dLng;
  const hi = p.lng + dLng;
  if (lo < -180) return [{ minLat, maxLat, minLng: lo + 360, maxLng: 180 }, { minLat, maxLat, minLng: -180, maxLng: hi }];
  if (hi > 180) return [{ minLat, maxLat, minLng: lo, maxLng: 180 }, { minLat, maxLat, minLng: -180, maxLng: hi - 360 }];
  return [{ minLat, maxLat, minLng: lo, maxLng: hi }];
}
