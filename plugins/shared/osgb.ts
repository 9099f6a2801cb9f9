// British National Grid (OSGB36, EPSG:27700) easting/northing to WGS84 latitude/longitude: the inverse
// Transverse Mercator projection on the Airy 1830 ellipsoid, then a 7-parameter Helmert transform to WGS84.
// Formulas and constants from Ordnance Survey, "A guide to coordinate systems in Great Britain" (annexes B, C);
// the Helmert transform is good to about 5 metres (OSTN15 would be better, and is a large grid file).

const AIRY = { a: 6377563.396, b: 6356256.909 };
const WGS84 = { a: 6378137.0, b: 6356752.314245 };
/** National Grid projection: scale on the central meridian, true origin 49°N 2°W, false origin. */
const F0 = 0.9996012717;
const PHI0 = (49 * Math.PI) / 180;
const LAMBDA0 = (-2 * Math.PI) / 180;
const E0 = 400000;
const N0 = -100000;
/** OSGB36 -> WGS84: translations in metres, scale in ppm, rotations in arc seconds. */
const HELMERT = { tx: 446.448, ty: -125.157, tz: 542.06, s: -20.4894, rx: 0.1502, ry: 0.247, rz: 0.8421 };

const ARCSEC = Math.PI / (180 * 3600);
const deg = (r: number) => (r * 180) / Math.PI;

/** Latitude and longitude in radians on the Airy 1830 ellipsoid (OSGB36) of a grid reference. */
export function gridToOsgb36(easting: number, northing: number): { phi: number; lambda: number } {
  const { a, b } = AIRY;
  const e2 = 1 - (b * b) / (a * a);
  const n = (a - b) / (a + b);
  const [n2, n3] = [n * n, n * n * n];
  const meridionalArc = (phi: number) => {
    const d = phi - PHI0;
    const s = phi + PHI0;
    return b * F0 * ((1 + n + 1.25 * n2 + 1.25 * n3) * d
      - (3 * n + 3 * n2 + (21 / 8) * n3) * Math.sin(d) * Math.cos(s)
      + ((15 / 8) * n2 + (15 / 8) * n3) * Math.sin(2 * d) * Math.cos(2 * s)
      - (35 / 24) * n3 * Math.sin(3 * d) * Math.cos(3 * s));
  };
  let phi = PHI0;
  let m = 0;
  do {
    phi = (northing - N0 - m) / (a * F0) + phi;
    m = meridionalArc(phi);
  } while (Math.abs(northing - N0 - m) >= 0.00001);

  const sin2 = Math.sin(phi) ** 2;
  const nu = (a * F0) / Math.sqrt(1 - e2 * sin2);
  const rho = (a * F0 * (1 - e2)) / (1 - e2 * sin2) ** 1.5;
  const eta2 = nu / rho - 1;
  const t = Math.tan(phi);
  const [t2, t4, t6] = [t * t, t ** 4, t ** 6];
  const sec = 1 / Math.cos(phi);
  const VII = t / (2 * rho * nu);
  const VIII = (t / (24 * rho * nu ** 3)) * (5 + 3 * t2 + eta2 - 9 * t2 * eta2);
  const IX = (t / (720 * rho * nu ** 5)) * (61 + 90 * t2 + 45 * t4);
  const X = sec / nu;
  const XI = (sec / (6 * nu ** 3)) * (nu / rho + 2 * t2);
  const XII = (sec / (120 * nu ** 5)) * (5 + 28 * t2 + 24 * t4);
  const XIIA = (sec / (5040 * nu ** 7)) * (61 + 662 * t2 + 1320 * t4 + 720 * t6);
  const dE = easting - E0;
  return {
    phi: phi - VII * dE ** 2 + VIII * dE ** 4 - IX * dE ** 6,
    lambda: LAMBDA0 + X * dE - XI * dE ** 3 + XII * dE ** 5 - XIIA * dE ** 7,
  };
}

function toCartesian(phi: number, lambda: number, { a, b }: { a: number; b: number }) {
  const e2 = 1 - (b * b) / (a * a);
  const nu = a / Math.sqrt(1 - e2 * Math.sin(phi) ** 2);
  return { x: nu * Math.cos(phi) * Math.cos(lambda), y: nu * Math.cos(phi) * Math.sin(lambda), z: (1 - e2) * nu * Math.sin(phi) };
}

function fromCartesian({ x, y, z }: { x: number; y: number; z: number }, { a, b }: { a: number; b: number }) {
  const e2 = 1 - (b * b) / (a * a);
  const p = Math.sqrt(x * x + y * y);
  let phi = Math.atan2(z, p * (1 - e2));
  for (let i = 0; i < 10; i++) {
    const nu = a / Math.sqrt(1 - e2 * Math.sin(phi) ** 2);
    phi = Math.atan2(z + e2 * nu * Math.sin(phi), p);
  }
  return { phi, lambda: Math.atan2(y, x) };
}

/** WGS84 latitude and longitude in degrees (6 decimals, about 0.1 m) of a British National Grid reference. */
export function gridToWgs84(easting: number, northing: number): { latitude: number; longitude: number } {
  const { phi, lambda } = gridToOsgb36(easting, northing);
  const c = toCartesian(phi, lambda, AIRY);
  const s = HELMERT.s * 1e-6;
  const [rx, ry, rz] = [HELMERT.rx * ARCSEC, HELMERT.ry * ARCSEC, HELMERT.rz * ARCSEC];
  const moved = {
    x: HELMERT.tx + (1 + s) * c.x - rz * c.y + ry * c.z,
    y: HELMERT.ty + rz * c.x + (1 + s) * c.y - rx * c.z,
    z: HELMERT.tz - ry * c.x + rx * c.y + (1 + s) * c.z,
  };
  const wgs = fromCartesian(moved, WGS84);
  const round6 = (v: number) => Math.round(v * 1e6) / 1e6;
  return { latitude: round6(deg(wgs.phi)), longitude: round6(deg(wgs.lambda)) };
}
