#!/usr/bin/env bash
# A throwaway Audiobookshelf for the live suite, from a source archive (a
# release .tar.gz of advplyr/audiobookshelf, as `git archive` of its tag
# makes it) or a source folder, on a free port of 127.0.0.1, with the sample
# library the live tests need (8 books, one 3-book series, a podcast with 3
# episodes) and an active API key of its root user.
#
#   throwaway-abs.sh start SRC DIR   start one; DIR (made, must not exist or be
#                                    empty) holds its data, log (DIR/abs.log),
#                                    DIR/url, DIR/apikey and DIR/pid
#   throwaway-abs.sh stop DIR        stop the one of DIR and remove DIR
#   throwaway-abs.sh run SRC -- CMD  start one in a temporary folder, run CMD
#                                    with AUDIOBOOKSHELF_URL and
#                                    AUDIOBOOKSHELF_API_KEY of it, then stop it
#                                    and remove the folder; CMD's exit code
#
# Needs Node 20 with npm, a C++ compiler (sqlite3 is built from source), and
# ffmpeg and ffprobe (installed with apt-get when missing and run as root).
# The unpacked source and its node_modules are kept in ABS_CACHE (default
# ${XDG_CACHE_HOME:-~/.cache}/audiobookshelf-mcp), one folder per archive, so
# only the first start builds them (minutes). The server starts with
# SSRF_REQUEST_FILTER_WHITELIST=127.0.0.1 (the tests serve podcast feeds and
# a metadata provider on loopback) and RATE_LIMIT_AUTH_MAX=0.
set -euo pipefail

T0=$SECONDS
say() { printf '[throwaway-abs %4ss] %s\n' "$((SECONDS - T0))" "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }
usage() { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# jget EXPR: the JavaScript expression EXPR of o, the JSON on stdin.
jget() {
  node -e '
    let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
      let o; try { o = JSON.parse(s) } catch (e) { process.exit(3) }
      const v = (new Function("o", "return (" + process.argv[1] + ")"))(o)
      process.stdout.write(v === undefined || v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v))
    })' "$1"
}

# source SRC: prints the folder of SRC's source with its node_modules built.
prepare_source() {
  local src=$1 cache key dir nodedir
  cache=${ABS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/audiobookshelf-mcp}
  if [[ -d $src ]]; then
    [[ -f $src/package.json ]] || die "$src has no package.json: not an Audiobookshelf source folder"
    key=dir-$(printf '%s' "$(cd "$src" && pwd)" | sha256sum | cut -c1-16)
  else
    [[ -f $src ]] || die "$src: no such archive or folder"
    key=tgz-$(sha256sum "$src" | cut -c1-16)
  fi
  dir=$cache/abs-$key
  if [[ -f $dir/node_modules/.throwaway-ready ]]; then
    printf '%s' "$dir"
    return
  fi
  mkdir -p "$cache"
  local tmp
  tmp=$(mktemp -d "$cache/.build.XXXXXX")
  if [[ -d $src ]]; then
    say "copying $src"
    (cd "$src" && tar -c --exclude=./node_modules --exclude=./.git .) | tar -x -C "$tmp"
  else
    say "unpacking $(basename "$src")"
    tar -xzf "$src" -C "$tmp"
    # `git archive --prefix=...` archives hold one top folder
    if [[ ! -f $tmp/package.json ]]; then
      local top
      top=$(find "$tmp" -mindepth 2 -maxdepth 2 -name package.json -print -quit)
      [[ -n $top ]] || die "$src holds no package.json"
      mv "$(dirname "$top")" "$tmp.src" && rm -rf "$tmp" && mv "$tmp.src" "$tmp"
    fi
  fi
  say "installing its node modules (sqlite3 built from source: minutes); log $tmp/npm.log"
  nodedir=$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")
  export npm_config_nodedir=$nodedir npm_config_build_from_source=true npm_config_cache=$cache/npm-cache
  if ! (cd "$tmp" && npm ci --omit=dev --no-audit --no-fund >"$tmp/npm.log" 2>&1); then
    # npm 11 refuses the v2.36.0 lock file (the darwin-only fsevents entry is
    # missing); npm install keeps every locked version.
    grep -q 'in sync' "$tmp/npm.log" || die "npm ci failed: $(tail -n 5 "$tmp/npm.log")"
    (cd "$tmp" && npm install --omit=dev --no-audit --no-fund >>"$tmp/npm.log" 2>&1) || die "npm install failed: $(tail -n 5 "$tmp/npm.log")"
  fi
  (cd "$tmp" && node -e 'require("sqlite3")' >/dev/null 2>&1) ||
    (cd "$tmp" && npm rebuild sqlite3 --build-from-source >>"$tmp/npm.log" 2>&1 && node -e 'require("sqlite3")') ||
    die "sqlite3 does not load: $(tail -n 5 "$tmp/npm.log")"
  touch "$tmp/node_modules/.throwaway-ready"
  if [[ -f $dir/node_modules/.throwaway-ready ]]; then
    rm -rf "$tmp" # another start built it meanwhile
  else
    rm -rf "$dir" && mv "$tmp" "$dir"
  fi
  printf '%s' "$dir"
}

free_port() {
  node -e 'const s = require("net").createServer(); s.listen(0, "127.0.0.1", () => { process.stdout.write(String(s.address().port)); s.close() })'
}

mkmp3() { # FILE DURATION_S FREQ, then ffmpeg -metadata k=v pairs
  local f=$1 dur=$2 freq=$3 args=()
  shift 3
  mkdir -p "$(dirname "$f")"
  for kv in "$@"; do args+=(-metadata "$kv"); done
  ffmpeg -nostdin -loglevel error -y -f lavfi -i "sine=frequency=$freq:duration=$dur" \
    -ac 1 -ar 22050 -c:a libmp3lame -b:a 32k "${args[@]}" -id3v2_version 3 "$f"
}

seed_media() { # MEDIA
  local B=$1/books P=$1/podcasts/Some\ Podcast d="Terry Pratchett/Discworld"
  mkmp3 "$B/$d/Book 1 - The Colour of Magic/book.mp3" 120 440 "title=The Colour of Magic" "album=The Colour of Magic" \
    "artist=Terry Pratchett" "album_artist=Terry Pratchett" "composer=Nigel Planer" "date=1983" "genre=Fantasy" \
    "series=Discworld" "series-part=1" "comment=The first Discworld novel."
  mkmp3 "$B/$d/Book 2 - The Light Fantastic/book.mp3" 120 466 "title=The Light Fantastic" "album=The Light Fantastic" \
    "artist=Terry Pratchett" "album_artist=Terry Pratchett" "composer=Nigel Planer" "date=1986" "genre=Fantasy" \
    "series=Discworld" "series-part=2" "comment=Rincewind and Twoflower, continued."
  mkmp3 "$B/$d/Book 3 - Equal Rites/book.mp3" 120 494 "title=Equal Rites" "album=Equal Rites" \
    "artist=Terry Pratchett" "album_artist=Terry Pratchett" "composer=Celia Imrie" "date=1987" "genre=Fantasy" \
    "series=Discworld" "series-part=3" "comment=A girl becomes a wizard."
  mkmp3 "$B/Ada Quill/The Lantern Keeper/book.mp3" 120 523 "title=The Lantern Keeper" "album=The Lantern Keeper" \
    "artist=Ada Quill" "album_artist=Ada Quill" "composer=Rowan Hale" "date=2019" "genre=Mystery" \
    "comment=A lighthouse keeper finds a ledger of ships that never sailed."
  mkmp3 "$B/Ada Quill/Salt and Iron/book.mp3" 120 554 "title=Salt and Iron" "album=Salt and Iron" \
    "artist=Ada Quill" "album_artist=Ada Quill" "composer=Rowan Hale" "date=2021" "genre=Mystery" \
    "comment=A harbour town and a missing blacksmith."
  mkmp3 "$B/Marcus Thorne/Glass Meridian/book.mp3" 120 587 "title=Glass Meridian" "album=Glass Meridian" \
    "artist=Marcus Thorne" "album_artist=Marcus Thorne" "composer=Imogen Vale" "date=2015" "genre=Science Fiction" \
    "comment=Cartographers map a city that rearranges itself."
  mkmp3 "$B/Elena Vasquez-Holt/The Quiet Orbit/book.mp3" 120 622 "title=The Quiet Orbit" "album=The Quiet Orbit" \
    "artist=Elena Vasquez-Holt" "album_artist=Elena Vasquez-Holt" "composer=Samuel Ortiz" "date=2022" "genre=Science Fiction" \
    "comment=The last crew of a silent station."
  mkmp3 "$B/Jonah Pike/Rivers of Copper/book.mp3" 120 659 "title=Rivers of Copper" "album=Rivers of Copper" \
    "artist=Jonah Pike" "album_artist=Jonah Pike" "composer=Jonah Pike" "date=2010" "genre=History" \
    "comment=Mining towns of the old west."
  local i names=("Pilot" "Second Light" "The Long Road")
  for i in 1 2 3; do
    mkmp3 "$P/Episode $i - ${names[i - 1]}.mp3" 60 $((300 + 50 * i)) "title=Episode $i: ${names[i - 1]}" \
      "album=Some Podcast" "artist=Some Host" "album_artist=Some Host" "track=$i" "date=2024-0$i-15" \
      "genre=Podcast" "comment=Episode $i of Some Podcast."
  done
}

start() { # SRC DIR
  local src=$1 dir=$2
  mkdir -p "$dir"
  [[ -z $(ls -A "$dir") ]] || die "$dir is not empty"
  dir=$(cd "$dir" && pwd)
  if ! command -v ffmpeg >/dev/null || ! command -v ffprobe >/dev/null; then
    [[ $(id -u) == 0 ]] || die "ffmpeg and ffprobe are needed (the system's ffmpeg package)"
    say "installing ffmpeg with apt-get"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >"$dir/apt.log" 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ffmpeg >>"$dir/apt.log" 2>&1 ||
      die "apt-get install ffmpeg failed: $(tail -n 3 "$dir/apt.log")"
  fi
  local code port url
  code=$(prepare_source "$src")
  port=$(free_port)
  url=http://127.0.0.1:$port
  mkdir -p "$dir/config" "$dir/metadata"
  say "starting Audiobookshelf $(jget o.version <"$code/package.json") on $url"
  (
    cd "$code"
    SSRF_REQUEST_FILTER_WHITELIST=127.0.0.1 RATE_LIMIT_AUTH_MAX=0 SKIP_BINARIES_CHECK=1 \
      FFMPEG_PATH=$(command -v ffmpeg) FFPROBE_PATH=$(command -v ffprobe) HOST=127.0.0.1 PORT=$port \
      CONFIG_PATH=$dir/config METADATA_PATH=$dir/metadata NODE_ENV=production \
      setsid nohup node index.js >"$dir/abs.log" 2>&1 </dev/null &
    echo $! >"$dir/pid"
  )
  local pid
  pid=$(cat "$dir/pid")
  seed_media "$dir/media" &
  local seeding=$!
  for _ in $(seq 240); do
    curl -fsS -m 3 "$url/ping" 2>/dev/null | grep -q '"success":true' && break
    kill -0 "$pid" 2>/dev/null || die "the server exited: $(tail -n 5 "$dir/abs.log")"
    sleep 0.5
  done
  curl -fsS -m 3 "$url/ping" >/dev/null 2>&1 || die "no answer on $url/ping within 2 minutes: $(tail -n 5 "$dir/abs.log")"
  curl -fsS -m 30 -o /dev/null -H 'Content-Type: application/json' \
    --data '{"newRoot":{"username":"root","password":"root"}}' "$url/init" || die "POST /init failed"
  local token api root_id
  token=$(curl -fsS -m 30 -H 'Content-Type: application/json' --data '{"username":"root","password":"root"}' "$url/login" |
    jget 'o.user.accessToken || o.user.token')
  [[ -n $token ]] || die "the login answered no token"
  api() { # METHOD PATH [JSON]
    local body
    body=$(curl -sS -m 60 --fail-with-body -X "$1" -H "Authorization: Bearer $token" \
      -H 'Content-Type: application/json' ${3:+--data "$3"} "$url$2") || die "$1 $2 failed: ${body:0:300}"
    printf '%s' "$body"
  }
  root_id=$(api GET /api/me | jget o.id)
  wait "$seeding" || die "making the sample audio with ffmpeg failed"
  local books pods n eps
  books=$(api POST /api/libraries "{\"name\":\"Books\",\"mediaType\":\"book\",\"folders\":[{\"fullPath\":\"$dir/media/books\"}]}" | jget o.id)
  pods=$(api POST /api/libraries "{\"name\":\"Podcasts\",\"mediaType\":\"podcast\",\"folders\":[{\"fullPath\":\"$dir/media/podcasts\"}]}" | jget o.id)
  api POST "/api/libraries/$books/scan" >/dev/null
  api POST "/api/libraries/$pods/scan" >/dev/null
  for _ in $(seq 240); do
    n=$(api GET "/api/libraries/$books/items?limit=20" | jget o.total)
    eps=$(api GET "/api/libraries/$pods/items?limit=10" | jget 'o.results.reduce((n, i) => n + (i.media.numEpisodes ?? i.media.episodes?.length ?? 0), 0)')
    [[ ${n:-0} -ge 8 && ${eps:-0} -ge 3 ]] && break
    sleep 0.5
  done
  [[ ${n:-0} -ge 8 && ${eps:-0} -ge 3 ]] || die "after 2 minutes of scanning: ${n:-0} books (want 8), ${eps:-0} episodes (want 3)"
  local key
  key=$(api POST /api/api-keys "{\"name\":\"make test-live\",\"userId\":\"$root_id\",\"isActive\":true}" | jget o.apiKey.apiKey)
  [[ -n $key ]] || die "no key in the POST /api/api-keys answer"
  printf '%s' "$url" >"$dir/url"
  (umask 077 && printf '%s' "$key" >"$dir/apikey")
  say "ready: $url (pid $pid), 8 books and a podcast of 3 episodes; $dir"
}

stop() { # DIR
  local dir=$1 pid
  pid=$(cat "$dir/pid" 2>/dev/null || true)
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -rf "$dir"
}

case ${1:-} in
  start) [[ $# == 3 ]] || usage; start "$2" "$3" ;;
  stop) [[ $# == 2 ]] || usage; stop "$2" ;;
  run)
    [[ $# -ge 4 && $3 == -- ]] || usage
    src=$2
    shift 3
    dir=$(mktemp -d "${TMPDIR:-/tmp}/throwaway-abs.XXXXXX")
    trap 'stop "$dir"' EXIT
    trap 'exit 130' INT TERM
    start "$src" "$dir"
    rc=0
    AUDIOBOOKSHELF_URL=$(cat "$dir/url") AUDIOBOOKSHELF_API_KEY=$(cat "$dir/apikey") "$@" || rc=$?
    exit $rc
    ;;
  *) usage ;;
esac
