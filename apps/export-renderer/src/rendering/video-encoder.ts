import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import sharp from 'sharp';
import { EXPORT_LIMITS } from '@contracts/domain';
import type { Frame } from './creative-renderer';

const run = promisify(execFile);

/** Seconds each frame shows in a video; a single frame makes a still video of this length. */
export const VIDEO_SECONDS_PER_FRAME = 2;

/** The ffmpeg binary the npm package ships (the image installs the same package). */
export const ffmpegPath = (): string => ffmpeg.path;

/**
 * Frames as a short H.264 mp4 (yuv420p, 25 fps, faststart), each frame held VIDEO_SECONDS_PER_FRAME.
 * H.264 in 4:2:0 needs even sides, so an odd width or height gains one row or column of the last
 * pixels (pad), never a scaled image. ffmpeg runs as a child process, killed past the render time cap.
 */
export async function encodeMp4(frames: readonly Frame[], tmpDir?: string): Promise<Buffer> {
  if (frames.length === 0) throw new Error('encodeMp4: no frames');
  const dir = await mkdtemp(join(tmpDir ?? tmpdir(), 'export-mp4-'));
  try {
    // The last frame is written twice: ffmpeg ends a stream at its last frame's start, so the copy holds it for its full time (cut by -t).
    for (const [index, frame] of [...frames, frames[frames.length - 1]].entries()) {
      const png = await sharp(frame.rgba, { raw: { width: frame.width, height: frame.height, channels: 4 } })
        .flatten({ background: '#ffffff' })
        .png({ compressionLevel: 1 })
        .toBuffer();
      await writeFile(join(dir, `frame-${String(index).padStart(3, '0')}.png`), png);
    }
    const out = join(dir, 'out.mp4');
    await run(
      ffmpegPath(),
      [
        '-hide_banner',
        '-loglevel',
        'error',
        '-y',
        '-framerate',
        `1/${VIDEO_SECONDS_PER_FRAME}`,
        '-i',
        join(dir, 'frame-%03d.png'),
        '-vf',
        'fps=25,pad=ceil(iw/2)*2:ceil(ih/2)*2',
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-pix_fmt',
        'yuv420p',
        '-t',
        String(frames.length * VIDEO_SECONDS_PER_FRAME),
        '-movflags',
        '+faststart',
        out,
      ],
      { timeout: EXPORT_LIMITS.renderTimeoutMs, killSignal: 'SIGKILL', maxBuffer: 1024 * 1024 },
    );
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
