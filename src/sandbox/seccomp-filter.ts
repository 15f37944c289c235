// A seccomp filter (classic BPF, as bwrap's --seccomp reads it) that refuses, inside the sandbox:
// - the kernel keyring system calls. Keyrings are not namespaced by anything bwrap unshares: a
//   sandboxed command could read the keys its user holds on the host (session tokens, Kerberos
//   tickets, LUKS and ecryptfs keys) and add its own. No program a coding session runs needs them.
// - btrfs's snapshot ioctls. A snapshot copies a subvolume as it is on disk, beneath the sandbox's
//   mounts: where the project is a subvolume its owner may snapshot, `btrfs subvolume snapshot .
//   s` would hold every secret file the sandbox masks, readable at `s/.env`. Only the request
//   number's low 32 bits are compared, since that is all the kernel reads of it.
// Every other call is allowed; the filter only subtracts.

/** AUDIT_ARCH_* values and each architecture's numbers of add_key, request_key and keyctl, and of ioctl. */
const ARCHITECTURES: readonly { arch: number; calls: readonly number[]; ioctl: readonly number[] }[] = [
  { arch: 0xc000003e, calls: [248, 249, 250], ioctl: [16, 514] }, // x86_64 (x32 numbers too, below; 514 is x32's ioctl)
  { arch: 0xc00000b7, calls: [217, 218, 219], ioctl: [29] }, // aarch64
  { arch: 0x40000003, calls: [286, 287, 288], ioctl: [54] }, // i386
  { arch: 0x40000028, calls: [309, 310, 311], ioctl: [54] }, // arm
];

/** BTRFS_IOC_SNAP_CREATE and BTRFS_IOC_SNAP_CREATE_V2 (`_IOW(0x94, 1 | 23, 4096 bytes)`). */
export const REFUSED_IOCTLS: readonly number[] = [0x50009401, 0x50009417];

const X32_BIT = 0x40000000;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
/** `struct seccomp_data`: the call's number at 0, the architecture at 4, args[1]'s low word at 24 (little-endian). */
const ARG1_LOW = 24;

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

/** An instruction whose true branch jumps to a label of its block (resolved by `assemble`). */
type Step = Instruction | { label: string } | { jeq: number; to: string };

function assemble(steps: readonly Step[]): Instruction[] {
  const positions = new Map<string, number>();
  let at = 0;
  for (const step of steps) {
    if ('label' in step) positions.set(step.label, at);
    else at += 1;
  }
  const out: Instruction[] = [];
  for (const step of steps) {
    if ('label' in step) continue;
    if ('jeq' in step) {
      const target = positions.get(step.to);
      if (target === undefined) throw new Error(`seccomp filter: no label ${step.to}`);
      out.push({ code: JEQ_K, jt: target - out.length - 1, jf: 0, k: step.jeq });
    } else out.push(step);
  }
  return out;
}

function program(): Instruction[] {
  const out: Instruction[] = [];
  // Per architecture: [ld nr; (and ~x32 for x86_64); jeq call → deny …; jeq ioctl → check;
  // allow; check: ld arg1; jeq request → deny …; allow; deny]. The dispatch on the architecture
  // comes first and jumps to each block; unknown architectures are allowed (the filter has nothing
  // to say about calls it cannot number).
  const blocks = ARCHITECTURES.map(({ arch, calls, ioctl }) =>
    assemble([
      { code: LD_W_ABS, jt: 0, jf: 0, k: 0 },
      ...(arch === 0xc000003e ? [{ code: AND_K, jt: 0, jf: 0, k: ~X32_BIT >>> 0 }] : []),
      ...calls.map((call) => ({ jeq: call, to: 'deny' })),
      ...ioctl.map((call) => ({ jeq: call, to: 'ioctl' })),
      { code: RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ALLOW },
      { label: 'ioctl' },
      { code: LD_W_ABS, jt: 0, jf: 0, k: ARG1_LOW },
      ...REFUSED_IOCTLS.map((request) => ({ jeq: request, to: 'deny' })),
      { code: RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ALLOW },
      { label: 'deny' },
      { code: RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ERRNO | EPERM },
    ]),
  );
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
