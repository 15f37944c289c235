// A seccomp filter (classic BPF, as bwrap's --seccomp reads it) that refuses the kernel keyring
// system calls inside the sandbox. Keyrings are not namespaced by anything bwrap unshares: a
// sandboxed command could read the keys its user holds on the host (session tokens, Kerberos
// tickets, LUKS and ecryptfs keys) and add its own. No program a coding session runs needs them.
// Every other call is allowed; the filter only subtracts.

/** AUDIT_ARCH_* values and each architecture's numbers of add_key, request_key and keyctl. */
const ARCHITECTURES: readonly { arch: number; calls: readonly number[] }[] = [
  { arch: 0xc000003e, calls: [248, 249, 250] }, // x86_64 (x32 numbers too, below)
  { arch: 0xc00000b7, calls: [217, 218, 219] }, // aarch64
  { arch: 0x40000003, calls: [286, 287, 288] }, // i386
  { arch: 0x40000028, calls: [309, 310, 311] }, // arm
];

const X32_BIT = 0x40000000;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;

// BPF opcodes.
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const RET_K = 0x06;
const AND_K = 0x54;

interface Instruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

function program(): Instruction[] {
  const out: Instruction[] = [];
  // Per architecture: [ld nr; (and ~x32 for x86_64); jeq call → deny …; ret allow]. The dispatch
  // on the architecture comes first and jumps to each block; unknown architectures are allowed
  // (the filter has nothing to say about calls it cannot number).
  const blocks = ARCHITECTURES.map(({ arch, calls }) => {
    const body: Instruction[] = [{ code: LD_W_ABS, jt: 0, jf: 0, k: 0 }];
    if (arch === 0xc000003e) body.push({ code: AND_K, jt: 0, jf: 0, k: ~X32_BIT >>> 0 });
    // Each jeq jumps over the rest of the block to its deny (the block ends: allow, deny).
    calls.forEach((call, index) => {
      body.push({ code: JEQ_K, jt: calls.length - index, jf: 0, k: call });
    });
    body.push({ code: RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ALLOW });
    body.push({ code: RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ERRNO | EPERM });
    return body;
  });
  // Dispatch: ld arch; for each architecture a jeq to its block; then allow.
  out.push({ code: LD_W_ABS, jt: 0, jf: 0, k: 4 });
  const dispatchLength = ARCHITECTURES.length + 1;
  let offset = 0;
  ARCHITECTURES.forEach(({ arch }, index) => {
    // From the instruction after this jeq to the block's start.
    const toBlock = dispatchLength - index - 1 + offset;
    out.push({ code: JEQ_K, jt: toBlock, jf: 0, k: arch });
    offset += blocks[index]!.length;
  });
  out.push({ code: RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ALLOW });
  for (const block of blocks) out.push(...block);
  return out;
}

/** The filter as bytes (struct sock_filter, host byte order), ready to hand bwrap on a descriptor. */
export function keyringSeccompFilter(): Buffer {
  const instructions = program();
  const bytes = Buffer.alloc(instructions.length * 8);
  const little = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  instructions.forEach(({ code, jt, jf, k }, index) => {
    const at = index * 8;
    if (little) {
      bytes.writeUInt16LE(code, at);
      bytes.writeUInt32LE(k >>> 0, at + 4);
    } else {
      bytes.writeUInt16BE(code, at);
      bytes.writeUInt32BE(k >>> 0, at + 4);
    }
    bytes.writeUInt8(jt, at + 2);
    bytes.writeUInt8(jf, at + 3);
  });
  return bytes;
}
