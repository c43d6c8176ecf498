/**
 * Helpers for terminal (ADMS) tests: a raw HTTP/1.1 client over a TCP socket, so a test controls
 * every header byte (no Content-Type, `Expect: 100-continue`) the way a terminal sends them, and
 * the vectors of docs/protocol/adms-vectors.md as exact strings.
 */
import net from 'node:net';

export interface RawResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
  /** Whether the server sent an interim `100 Continue`. */
  sawContinue: boolean;
}

export interface RawRequest {
  method: 'GET' | 'POST';
  /** Path and query, e.g. `/iclock/cdata?SN=X&table=ATTLOG`. */
  path: string;
  body?: string | Uint8Array;
  /** Extra header lines; a real terminal sends no Content-Type on some firmware. */
  headers?: Record<string, string>;
  /** Send `Expect: 100-continue`, wait up to 1 s for `100 Continue`, then send the body. */
  expectContinue?: boolean;
}

const RFC1123 = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

export function isHttpDate(value: string | null | undefined): boolean {
  return typeof value === 'string' && RFC1123.test(value);
}

/** One request on a fresh connection (`Connection: close`, as terminals do). */
export function rawRequest(baseUrl: string, req: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const body = typeof req.body === 'string' ? new TextEncoder().encode(req.body) : (req.body ?? new Uint8Array(0));
  const lines = [
    `${req.method} ${req.path} HTTP/1.1`,
    `Host: ${url.host}`,
    'User-Agent: iClock Proxy/1.09',
    'Connection: close',
    'Accept: */*',
    ...Object.entries(req.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
  ];
  if (req.method === 'POST') lines.push(`Content-Length: ${body.byteLength}`);
  if (req.expectContinue) lines.push('Expect: 100-continue');
  const head = `${lines.join('\r\n')}\r\n\r\n`;

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bodySent = !req.expectContinue;
    let sawContinue = false;
    const socket = net.connect(Number(url.port), url.hostname, () => {
      socket.write(head);
      if (bodySent && body.byteLength > 0) socket.write(body);
    });
    const sendBody = () => {
      if (bodySent) return;
      bodySent = true;
      if (body.byteLength > 0) socket.write(body);
    };
    const timer = req.expectContinue ? setTimeout(sendBody, 1000) : null;
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      if (!bodySent && Buffer.concat(chunks).toString('latin1').startsWith('HTTP/1.1 100')) {
        sawContinue = true;
        sendBody();
      }
    });
    socket.on('error', reject);
    socket.on('close', () => {
      if (timer) clearTimeout(timer);
      let text = Buffer.concat(chunks).toString('utf8');
      if (text.startsWith('HTTP/1.1 100')) {
        sawContinue = true;
        text = text.slice(text.indexOf('\r\n\r\n') + 4);
      }
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...headerLines] = text.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const h of headerLines) {
        const colon = h.indexOf(':');
        if (colon > 0) headers[h.slice(0, colon).trim().toLowerCase()] = h.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: text.slice(split + 4), sawContinue });
    });
  });
}

/** A terminal-style fetch: plain text body, the device's User-Agent. */
export async function admsFetch(
  baseUrl: string,
  path: string,
  init: { method?: string; body?: string | Uint8Array<ArrayBuffer>; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: string; headers: Headers }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'),
    headers: { 'user-agent': 'iClock Proxy/1.09', ...(typeof init.body === 'string' ? { 'content-type': 'text/plain' } : {}), ...(init.headers ?? {}) },
    body: init.body,
  });
  return { status: res.status, body: await res.text(), headers: res.headers };
}

// ------------------------------------------------------------------ vectors (docs/protocol/adms-vectors.md)

export const V02 =
  '~DeviceName=SpeedFace-V5L[TD],MAC=00:17:61:12:e5:41,TransactionCount=0,~MaxAttLogCount=20,UserCount=1,~MaxUserCount=100,PhotoFunOn=1,~MaxUserPhotoCount=2500,FingerFunOn=1,FPVersion=10,~MaxFingerCount=60,FPCount=1,FaceFunOn=1,FaceVersion=58,~MaxFaceCount=6000,FaceCount=0,FvFunOn=0,FvVersion=3,~MaxFvCount=10,FvCount=0,PvFunOn=1,PvVersion=12,~MaxPvCount=3000,PvCount=0,Language=69,IPAddress=192.168.54.216,~Platform=ZAM170_TFT,~OEMVendor=ZKTeco Co., Ltd.,FWVersion=ZAM170-NF-Ver1.1.27,PushVersion=Ver 2.0.32S-20200506,RegDeviceType=,VisilightFun=1,MultiBioDataSupport=0:1:0:0:0:0:0:0:1:1,MultiBioPhotoSupport=0:0:0:0:0:0:0:0:0:1,IRTempDetectionFunOn=1,MaskDetectionFunOn=1,UserPicURLFunOn=,VisualIntercomFunOn=,VideoTID=';
export const V04 = '1001\t2024-03-11 08:59:12\t0\t1\t0\t0\t0\n1002\t2024-03-11 09:01:47\t0\t15\t0\t0\t0\n1001\t2024-03-11 18:02:03\t1\t1\t0\t0\t0\n';
export const V04B_11_FIELDS = '46\t2025-01-29 06:58:48\t0\t15\t0\t0\t0\t0\t0\t0\t10881\n';
export const V04B_TRAILING_TAB = '1234\t2026-08-12 09:55:55\t0\t1\t\t0\t0\t\n';
export const V04B_CRLF = '1001\t2024-03-11 08:59:12\t0\t1\t0\t0\t0\r\n\r\n';
export const V04B_THERMAL = '1001\t2024-03-11 08:59:12\t0\t15\t0\t0\t0\t1\t36.5\t97.7\n';
export const V05A = 'USER PIN=5\tName=yyyy\tPri=0\tPasswd=1\tCard=\tGrp=1\tTZ=0000000100000000\tVerify=-1\tViceCard=\tStartDatetime=0\tEndDatetime=0\n';
export const FP_TEMPLATE = 'SghTUzIxIlF7qwlffdgUXdY0TrNYhrQeLiqJTr1JyKnuwzL09g/pCrgTZ2tRCI0vms51ekjL4QwayZDbSKTpifxtVFRM1V7aS08krS54A9C2ui6iHyu512vGah/5GtS4';
export const V05B = `USER PIN=1001\tName=Ana Pérez\tPri=0\tPasswd=\tCard=[15CD5B07]\tGrp=1\tTZ=0000000100000000\tVerify=-1\tViceCard=\nFP PIN=1001\tFID=6\tSize=128\tValid=1\tTMP=${FP_TEMPLATE}\n`;
export const V05C =
  'OPLOG 0\t0\t2020-06-23 13:19:24\t0\t0\t0\t0\nOPLOG 3\t0\t2020-06-23 13:19:37\t55\t0\t0\t0\nOPLOG 4\t0\t2020-06-23 13:19:42\t0\t0\t0\t0\nOPLOG 5\t0\t2020-06-23 13:20:44\tDHCP\t0\t0\t0\nOPLOG 5\t0\t2020-06-23 13:20:49\tDHCP\t0\t0\t0\nOPLOG 5\t0\t2020-06-23 13:20:50\tDHCP\t0\t0\t0\n';
export const V06 =
  'BIODATA Pin=1001\tNo=0\tIndex=0\tValid=1\tDuress=0\tType=9\tMajorVer=58\tMinorVer=10\tFormat=0\tTmp=8630VS3j8pZUKmx5lGpTVD/Q6tnCrRS14WUiNXlqHmV2cbm2dnTlLl+M1FLHam72oxnupl6c1D0QiR3gcwPAmQjI/pFympbc\nBIODATA Pin=1001\tNo=0\tIndex=0\tValid=1\tDuress=0\tType=8\tMajorVer=12\tMinorVer=0\tFormat=0\tTmp=lbthRfDTnwxqzJyJbVeXl5ant96FtRjNenJCH5osiqOywCndQ/8hK0wIwsOMPS0M\n';
export const V09 = 'ID=1001&Return=0&CMD=DATA\nID=1002&Return=0&CMD=DATA\n';
export const V10C = 'OPLOG 6\t0\t2024-03-11 10:21:09\t1001\t7\t96\t0\n';
export const V11 =
  'ID=122&Return=0&CMD=INFO\n~DeviceName=MB360/ID\nMAC=00:17:61:10:79:9f\nTransactionCount=98\n~MaxAttLogCount=10\nUserCount=143\n~MaxUserCount=20\nFingerFunOn=1\n~AlgVer=10\nFPVersion=10\n~MaxFingerCount=20\nFPCount=1\nFaceFunOn=1\nFaceVersion=7\n~MaxFaceCount=1500\nFaceCount=141\nLanguage=69\nIPAddress=172.16.12.182\n~Platform=ZMM220_TFT\nFWVersion=Ver 8.0.4.2-I113-02\nPushVersion=Ver 2.0.36-20180926\n~ZKFPVersion=10\n~SerialNumber=CEZU202360241\n~DSTF=1\n';
export const V21 =
  'DeviceType=acc,~DeviceName=SpeedFace-V5L-RFID,FirmVer=ZAM180-NF-Ver1.1.17,PushVersion=3.1.2,MAC=00:17:61:12:f8:db,~ZKFPVersion=10,MultiBioDataSupport=0:1:0:0:0:0:0:0:1:1';

/** V14: ATTPHOTO header lines, a NUL, then JPEG bytes (FF D8 FF … never valid UTF-8). */
export function attPhotoBody(sn: string, image: Uint8Array, declaredSize = image.byteLength): Uint8Array<ArrayBuffer> {
  const header = new TextEncoder().encode(`PIN=20240311085912-1001.jpg\nSN=${sn}\nsize=${declaredSize}\nCMD=uploadphoto`);
  const out = new Uint8Array(header.byteLength + 1 + image.byteLength);
  out.set(header, 0);
  out[header.byteLength] = 0;
  out.set(image, header.byteLength + 1);
  return out;
}

export function fakeJpeg(bytes = 600): Uint8Array {
  const image = crypto.getRandomValues(new Uint8Array(bytes));
  image.set([0xff, 0xd8, 0xff, 0xe0], 0);
  image.set([0xff, 0xd9], bytes - 2);
  return image;
}
