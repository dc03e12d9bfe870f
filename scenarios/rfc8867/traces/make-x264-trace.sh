#!/bin/sh
# Regenerates x264-gradients-mandelbrot.csv (see README.md): RFC 8593 §6.1's Traces, one live
# x264 encoding of the same synthetic 720p30 source per rate of the ladder, frame sizes in
# decode order. Needs ffmpeg and ffprobe with libx264 (made with 5.1.9-0+deb12u1, x264 core 164).
set -eu
out=${1:-x264-gradients-mandelbrot.csv}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The source: a slowly shifting two-colour gradient (the room, its light) under a 480x560
# window of a slow Mandelbrot zoom (the head: detail that changes) that sways a few pixels, with
# light temporal noise (a camera's sensor) on the whole picture. 3 minutes at 30 fps.
src="gradients=s=1280x720:r=30:speed=0.002:seed=1,format=yuv420p[bg];\
mandelbrot=s=480x560:r=30:maxiter=256:end_pts=20000:start_scale=1.5:end_scale=0.1[fg];\
[bg][fg]overlay=x='400+24*sin(2*PI*t/7)':y='120+10*sin(2*PI*t/5)',\
noise=alls=4:allf=t:all_seed=8593"
echo "rate_bps,frame,size_bytes" > "$out"
for kbps in 150 350 550 750 950 1150 1350 1500; do
    # A live encoder: one I-frame then P-frames only (no periodic key frame, no scene cut, no
    # B-frames), no look-ahead (zerolatency), rate control at the target with a VBV of half a
    # second at the target rate.
    ffmpeg -hide_banner -loglevel error -f lavfi -i "$src" -t 180 \
        -c:v libx264 -preset veryfast -tune zerolatency \
        -b:v ${kbps}k -maxrate ${kbps}k -bufsize $((kbps / 2))k \
        -g 1000000 -bf 0 -x264-params keyint=infinite:scenecut=0 \
        -f mp4 -y "$work/$kbps.mp4"
    # Packets in decode order (= presentation order without B-frames): their sizes in bytes.
    ffprobe -v error -select_streams v:0 -show_entries packet=size -of csv=p=0 "$work/$kbps.mp4" |
        awk -v r=$((kbps * 1000)) '{ print r "," NR - 1 "," $1 }' >> "$out"
done
