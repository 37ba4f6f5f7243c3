// The Chorus playground: plain JavaScript against the server's own routes, no build step, nothing
// loaded from elsewhere. Speech arrives as 16-bit PCM (POST /v1/audio/speech, response_format pcm)
// and is scheduled into Web Audio piece by piece as it streams; the whole of it then becomes a WAV
// for the <audio> element and the history (POST /playground/history, kept in SQLite by the server).
'use strict';

const $ = (id) => document.getElementById(id);

const state = {
  key: localStorage.getItem('chorus-api-key') || '',
  models: [],
  voices: [],
  audioContext: null,
  speaking: null,
  cloneClip: null,
  transcribeClip: null,
  playerURL: null,
  scheduledPieces: 0,
};

// ---- talking to the server ----

function headers(extra = {}) {
  const all = { ...extra };
  if (state.key) all.Authorization = `Bearer ${state.key}`;
  return all;
}

/// fetch with the key; a refusal becomes an Error carrying the server's own sentence.
async function api(path, options = {}) {
  const response = await fetch(path, { ...options, headers: headers(options.headers) });
  if (response.status === 401) {
    $('key-box').open = true;
    throw new Error('This server wants an API key: enter it under "API key" at the top.');
  }
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try {
      const body = await response.json();
      if (body.error && body.error.message) message = body.error.message;
    } catch (_) { /* not JSON */ }
    throw new Error(message);
  }
  return response;
}

function say(id, message, isError = false) {
  const element = $(id);
  element.textContent = message;
  element.classList.toggle('error', isError);
}

function audioContext() {
  if (!state.audioContext) state.audioContext = new AudioContext();
  return state.audioContext;
}

// ---- audio helpers ----

/// 16-bit mono WAV of float samples.
function encodeWAV(samples, rate) {
  const buffer = new ArrayBuffer(44 + samples.length * 2);
  const view = new DataView(buffer);
  const text = (offset, value) => { for (let i = 0; i < value.length; i++) view.setUint8(offset + i, value.charCodeAt(i)); };
  text(0, 'RIFF'); view.setUint32(4, 36 + samples.length * 2, true); text(8, 'WAVE');
  text(12, 'fmt '); view.setUint32(16, 16, true); view.setUint16(20, 1, true); view.setUint16(22, 1, true);
  view.setUint32(24, rate, true); view.setUint32(28, rate * 2, true); view.setUint16(32, 2, true); view.setUint16(34, 16, true);
  text(36, 'data'); view.setUint32(40, samples.length * 2, true);
  for (let i = 0; i < samples.length; i++) {
    const clipped = Math.max(-1, Math.min(1, samples[i]));
    view.setInt16(44 + i * 2, clipped < 0 ? clipped * 32768 : clipped * 32767, true);
  }
  return new Blob([buffer], { type: 'audio/wav' });
}

/// The clip as a WAV the server reads: a WAV file as it is, anything the browser can decode
/// (a recording, mp3, ogg) decoded, mixed to mono and written as 16-bit WAV.
async function asWAV(blob) {
  const head = new Uint8Array(await blob.slice(0, 12).arrayBuffer());
  const tag = String.fromCharCode(...head.slice(0, 4)) + String.fromCharCode(...head.slice(8, 12));
  if (tag === 'RIFFWAVE') return blob;
  let decoded;
  try {
    decoded = await audioContext().decodeAudioData(await blob.arrayBuffer());
  } catch (_) {
    throw new Error('This browser cannot read that file as audio; try a WAV.');
  }
  const mono = new Float32Array(decoded.length);
  for (let channel = 0; channel < decoded.numberOfChannels; channel++) {
    const data = decoded.getChannelData(channel);
    for (let i = 0; i < data.length; i++) mono[i] += data[i] / decoded.numberOfChannels;
  }
  return encodeWAV(mono, decoded.sampleRate);
}

/// Records from the microphone until the button is pressed again; hands the take to `done` as a WAV.
async function toggleRecording(button, statusID, done) {
  if (button.recorder) {
    button.recorder.stop();
    return;
  }
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia || !window.MediaRecorder) {
    say(statusID, 'Recording needs a browser with microphone access, on https or on this machine (127.0.0.1).', true);
    return;
  }
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  } catch (error) {
    say(statusID, `The microphone is not available: ${error.message}`, true);
    return;
  }
  const recorder = new MediaRecorder(stream);
  const parts = [];
  const started = performance.now();
  recorder.ondataavailable = (event) => { if (event.data.size) parts.push(event.data); };
  recorder.onstop = async () => {
    stream.getTracks().forEach((track) => track.stop());
    button.recorder = null;
    button.textContent = 'Record';
    button.classList.remove('recording');
    try {
      const wav = await asWAV(new Blob(parts, { type: recorder.mimeType }));
      say(statusID, `Recorded ${((performance.now() - started) / 1000).toFixed(1)} s.`);
      done(wav);
    } catch (error) {
      say(statusID, error.message, true);
    }
  };
  recorder.start();
  button.recorder = recorder;
  button.textContent = 'Stop recording';
  button.classList.add('recording');
  say(statusID, 'Recording… press the button again to stop.');
}

function preview(audioID, blob) {
  const element = $(audioID);
  if (element.src) URL.revokeObjectURL(element.src);
  element.src = URL.createObjectURL(blob);
  element.hidden = false;
}

// ---- engines and voices ----

async function loadModels() {
  const response = await api('/v1/models');
  state.models = (await response.json()).data;
  const engine = $('engine');
  // The first choice, and the default: the server picks the engine and voice that speak the text's language.
  engine.replaceChildren(new Option('Automatic (by the text’s language)', ''),
    ...state.models.map((model) => {
      const option = new Option(`${model.name} (${model.id})`, model.id);
      // What the engine can do, from /v1/models (Engine.capabilities).
      option.title = model.capabilities.join(', ');
      return option;
    }));
  const remembered = localStorage.getItem('chorus-engine');
  if (remembered && state.models.some((model) => model.id === remembered)) engine.value = remembered;

  const cloning = state.models.filter((model) => model.clones_voices);
  $('clone-engine').replaceChildren(...cloning.map((model) => new Option(model.name, model.id)));
  $('clone-help').textContent = cloning.length ? '' : 'No engine on this server clones voices.';
  $('clone-button').disabled = !cloning.length;
  showCloneNeeds();
  showEngineOptions();
  await loadVoices();
}

// The speak form offers what the chosen engine takes, from /v1/models: its speeds (the slider is off for an engine
// with one pace) and its own options (Engine.options), one control each, sent as fields of the request.
function showEngineOptions() {
  const model = state.models.find((entry) => entry.id === $('engine').value);
  const fixed = model && model.speed && model.speed.minimum === model.speed.maximum;
  $('speed').disabled = Boolean(fixed);
  $('speed').title = fixed ? `${model.name} speaks at its own pace only` : '';
  const box = $('engine-options');
  const options = (model && model.options) || [];
  box.replaceChildren(...options.map((option) => {
    const label = document.createElement('label');
    label.title = option.summary;
    const input = document.createElement('input');
    input.dataset.option = option.name;
    input.dataset.type = option.type;
    if (option.type === 'flag') {
      input.type = 'checkbox';
    } else if (option.type === 'text') {
      input.type = 'text';
      input.maxLength = option.maximum_characters;
    } else {
      input.type = 'number';
      input.min = option.minimum;
      input.max = option.maximum;
      input.step = option.type === 'integer' ? '1' : 'any';
    }
    label.append(`${option.name} `, input);
    return label;
  }));
  box.hidden = options.length === 0;
}

// The options given in the speak form, by name (left empty: the engine's default).
function engineOptionValues() {
  const values = {};
  for (const input of $('engine-options').querySelectorAll('input')) {
    if (input.dataset.type === 'flag') {
      if (input.checked) values[input.dataset.option] = true;
    } else if (input.value.trim() !== '') {
      values[input.dataset.option] = input.dataset.type === 'text' ? input.value.trim() : Number(input.value);
    }
  }
  return values;
}

// The clone form asks for a transcript only where the chosen engine reads one, offers an instruction only where it
// takes one, and says the clip lengths it takes.
function showCloneNeeds() {
  const model = state.models.find((entry) => entry.id === $('clone-engine').value);
  const cloning = model && model.cloning;
  $('clone-instruction-field').hidden = !(model && model.capabilities.includes('instructions'));
  $('clone-transcript-field').hidden = !(cloning && cloning.needs_transcript);
  $('clone-transcript').required = Boolean(cloning && cloning.needs_transcript && !cloning.without_transcript);
  const dialects = (cloning && cloning.dialects) || [];
  $('clone-dialect-field').hidden = dialects.length === 0;
  $('clone-dialect').replaceChildren(new Option('None', ''), ...dialects.map((name) => new Option(name, name)));
  if (cloning) {
    $('clone-help').textContent = `Upload a clip of ${cloning.minimum_seconds}-${cloning.maximum_seconds} s (WAV, FLAC, MP3, or anything this browser plays) or record one`
      + (cloning.needs_transcript ? ', with its words' : '') + '; the voice is installed at once.'
      + (cloning.without_transcript ? ` Left without its words, ${cloning.without_transcript}.` : '');
  }
}

async function loadVoices() {
  const engine = $('engine').value;
  if (!engine) {
    // Chosen by the server for each text; the response's headers say which and why.
    state.voices = [];
    $('language').replaceChildren(new Option('The text’s', ''));
    $('voice').replaceChildren(new Option('Chosen for the text', ''));
    $('speak-button').disabled = false;
    say('speak-status', '');
    return;
  }
  say('speak-status', 'Loading voices…');
  const response = await api(`/v1/audio/voices?engine=${encodeURIComponent(engine)}`);
  const listing = await response.json();
  state.voices = listing.voices;
  const problem = listing.unavailable.find((entry) => entry.engine === engine);
  $('speak-button').disabled = Boolean(problem);
  say('speak-status', problem ? problem.message : '', Boolean(problem));

  const languages = [...new Set(state.voices.map((voice) => voice.language))].sort();
  $('language').replaceChildren(new Option('Any', ''), ...languages.map((language) => new Option(language, language)));
  const rememberedLanguage = localStorage.getItem(`chorus-language-${engine}`);
  if (rememberedLanguage && languages.includes(rememberedLanguage)) $('language').value = rememberedLanguage;
  fillVoices();
}

function fillVoices() {
  const engine = $('engine').value;
  const language = $('language').value;
  const shown = state.voices.filter((voice) => !language || voice.language === language);
  const groups = new Map();
  for (const voice of shown) {
    if (!groups.has(voice.language)) groups.set(voice.language, []);
    groups.get(voice.language).push(voice);
  }
  const options = [new Option('The engine’s default', '')];
  for (const [group, voices] of [...groups].sort()) {
    const element = document.createElement('optgroup');
    element.label = group;
    for (const voice of voices) {
      const details = [voice.gender !== 'unknown' ? voice.gender : '', voice.summary].filter(Boolean).join(', ');
      const option = new Option(voice.id, voice.id);
      if (details) option.title = details;
      element.append(option);
    }
    options.push(element);
  }
  $('voice').replaceChildren(...options);
  const remembered = localStorage.getItem(`chorus-voice-${engine}`);
  if (remembered && shown.some((voice) => voice.id === remembered)) $('voice').value = remembered;
  else if (language && shown.length) $('voice').value = shown[0].id;
}

// ---- speaking ----

function stop() {
  const run = state.speaking;
  if (!run) return;
  run.controller.abort();
  for (const source of run.sources) {
    try { source.stop(); } catch (_) { /* not started yet */ }
  }
  state.speaking = null;
  setSpeaking(false);
}

function setSpeaking(busy) {
  $('speak-button').disabled = busy;
  $('stop-button').disabled = !busy;
}

async function speak() {
  stop();
  const text = $('text').value.trim();
  if (!text) {
    say('speak-status', 'Type something to say first.', true);
    $('text').focus();
    return;
  }
  const engine = $('engine').value;
  const voice = $('voice').value;
  // An engine with one pace takes no other (the slider is off for it).
  const speed = $('speed').disabled ? 1 : Number($('speed').value);
  const context = audioContext();
  if (context.state === 'suspended') await context.resume().catch(() => {});
  const run = { controller: new AbortController(), sources: [] };
  state.speaking = run;
  state.scheduledPieces = 0;
  setSpeaking(true);
  $('first-audio').textContent = '…';
  say('speak-status', 'Asking the engine…');

  const started = performance.now();
  const pieces = [];
  let total = 0;
  let firstAudio = null;
  let rate = 24000;
  let spokenVoice = voice;
  let spokenEngine = engine;
  let chosenBecause = '';
  try {
    const body = { ...engineOptionValues(), input: text, speed, response_format: 'pcm' };
    if (engine) body.model = engine;
    if (voice) body.voice = voice;
    const response = await api('/v1/audio/speech', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal: run.controller.signal,
    });
    rate = Number(response.headers.get('X-Sample-Rate')) || rate;
    spokenVoice = response.headers.get('X-Chorus-Voice') || voice;
    spokenEngine = response.headers.get('X-Chorus-Engine') || engine;
    chosenBecause = response.headers.get('X-Chorus-Voice-Reason') || '';
    const reader = response.body.getReader();
    let carry = null;
    let playhead = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      let bytes = value;
      if (carry) {
        const joined = new Uint8Array(carry.length + bytes.length);
        joined.set(carry);
        joined.set(bytes, carry.length);
        bytes = joined;
        carry = null;
      }
      const usable = bytes.length - (bytes.length % 2);
      if (usable < bytes.length) carry = bytes.slice(usable);
      if (!usable) continue;
      const view = new DataView(bytes.buffer, bytes.byteOffset, usable);
      const samples = new Float32Array(usable / 2);
      for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true) / 32768;
      if (firstAudio === null) {
        firstAudio = performance.now() - started;
        $('first-audio').textContent = `${Math.round(firstAudio)} ms`;
        playhead = context.currentTime + 0.05;
      }
      const buffer = context.createBuffer(1, samples.length, rate);
      buffer.copyToChannel(samples, 0);
      const source = context.createBufferSource();
      source.buffer = buffer;
      source.connect(context.destination);
      playhead = Math.max(playhead, context.currentTime);
      source.start(playhead);
      playhead += buffer.duration;
      run.sources.push(source);
      state.scheduledPieces += 1;
      pieces.push(samples);
      total += samples.length;
      say('speak-status', `Playing while it streams: ${(total / rate).toFixed(1)} s so far.`);
    }
  } catch (error) {
    if (state.speaking === run) { state.speaking = null; setSpeaking(false); }
    if (error.name === 'AbortError') say('speak-status', 'Stopped.');
    else { say('speak-status', error.message, true); $('first-audio').textContent = '–'; }
    return;
  }
  if (state.speaking === run) state.speaking = null;
  setSpeaking(false);
  if (!total) {
    say('speak-status', 'The engine made no audio for that text.', true);
    return;
  }
  const all = new Float32Array(total);
  let offset = 0;
  for (const piece of pieces) { all.set(piece, offset); offset += piece.length; }
  const wav = encodeWAV(all, rate);
  if (state.playerURL) URL.revokeObjectURL(state.playerURL);
  state.playerURL = URL.createObjectURL(wav);
  $('player').src = state.playerURL;
  const seconds = total / rate;
  const status = $('speak-status');
  status.dataset.seconds = seconds.toFixed(3);
  status.dataset.firstAudioMs = Math.round(firstAudio);
  const chosen = engine ? '' : ` Spoken by ${spokenEngine} in ${spokenVoice}: ${chosenBecause}.`;
  say('speak-status', `Done: ${seconds.toFixed(1)} s of audio, first audio after ${Math.round(firstAudio)} ms.${chosen}`);
  await keep({ text, engine: spokenEngine, voice: spokenVoice, speed, firstAudio, wav });
}

// ---- history ----

async function keep({ text, engine, voice, speed, firstAudio, wav }) {
  const form = new FormData();
  form.append('text', text);
  form.append('engine', engine);
  form.append('voice', voice || 'default');
  form.append('speed', String(speed));
  form.append('first_audio_ms', String(Math.round(firstAudio)));
  form.append('audio', wav, 'speech.wav');
  try {
    await api('/playground/history', { method: 'POST', body: form });
    await loadHistory();
  } catch (error) {
    say('history-status', `Not kept in the history: ${error.message}`, true);
  }
}

async function loadHistory() {
  let entries;
  try {
    entries = (await (await api('/playground/history?limit=100')).json()).entries;
  } catch (error) {
    say('history-status', error.message, true);
    return;
  }
  say('history-status', entries.length ? `${entries.length} kept, newest first.` : 'Nothing spoken yet.');
  $('history-list').replaceChildren(...entries.map(historyItem));
}

function historyItem(entry) {
  const item = document.createElement('li');
  item.dataset.id = entry.id;
  const said = document.createElement('p');
  said.className = 'said';
  said.textContent = entry.text;
  const meta = document.createElement('p');
  meta.className = 'meta';
  const when = new Date(entry.created * 1000);
  const time = document.createElement('time');
  time.dateTime = when.toISOString();
  time.textContent = when.toLocaleString();
  const first = entry.first_audio_ms != null ? ` · first audio ${Math.round(entry.first_audio_ms)} ms` : '';
  meta.append(`${entry.engine} · ${entry.voice} · ${entry.duration.toFixed(1)} s · ×${entry.speed}${first} · `, time);
  const actions = document.createElement('div');
  actions.className = 'actions';
  const button = (label, name, action) => {
    const element = document.createElement('button');
    element.type = 'button';
    element.textContent = label;
    element.setAttribute('aria-label', `${name}: ${entry.text.slice(0, 60)}`);
    element.addEventListener('click', action);
    return element;
  };
  actions.append(
    button('Play', 'Play', () => replay(entry)),
    button('Download', 'Download', () => download(entry)),
    button('Delete', 'Delete', () => remove(entry)),
  );
  item.append(said, meta, actions);
  return item;
}

async function entryAudio(entry, query = '') {
  return (await api(`/playground/history/${entry.id}/audio${query}`)).blob();
}

async function replay(entry) {
  try {
    const blob = await entryAudio(entry);
    if (state.playerURL) URL.revokeObjectURL(state.playerURL);
    state.playerURL = URL.createObjectURL(blob);
    $('player').src = state.playerURL;
    await $('player').play();
    say('speak-status', `Playing the history's “${entry.text.slice(0, 40)}”.`);
  } catch (error) {
    say('history-status', error.message, true);
  }
}

async function download(entry) {
  try {
    const blob = await entryAudio(entry, '?download=1');
    const link = document.createElement('a');
    link.href = URL.createObjectURL(blob);
    link.download = `chorus-${entry.id}-${entry.voice.replace(/[^A-Za-z0-9_-]/g, '_')}.wav`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  } catch (error) {
    say('history-status', error.message, true);
  }
}

async function remove(entry) {
  try {
    await api(`/playground/history/${entry.id}`, { method: 'DELETE' });
    await loadHistory();
    $('history-title').focus();
  } catch (error) {
    say('history-status', error.message, true);
  }
}

// ---- cloning ----

async function clone() {
  const engine = $('clone-engine').value;
  const id = $('clone-id').value.trim();
  if (!state.cloneClip) {
    say('clone-status', 'Choose a clip or record one first.', true);
    return;
  }
  const form = new FormData();
  form.append('engine', engine);
  form.append('id', id);
  if (!$('clone-transcript-field').hidden) form.append('transcript', $('clone-transcript').value.trim());
  if ($('clone-language').value.trim()) form.append('language', $('clone-language').value.trim());
  if (!$('clone-dialect-field').hidden && $('clone-dialect').value) {
    form.append('dialect', $('clone-dialect').value);
  }
  if (!$('clone-instruction-field').hidden && $('clone-instruction').value.trim()) {
    form.append('instruction', $('clone-instruction').value.trim());
  }
  form.append('audio', state.cloneClip, 'clip.wav');
  $('clone-button').disabled = true;
  say('clone-status', 'Making the voice…');
  try {
    const voice = await (await api('/v1/audio/voices', { method: 'POST', body: form })).json();
    say('clone-status', `Added ${voice.engine} voice “${voice.id}”.`);
    if ($('engine').value === voice.engine) {
      await loadVoices();
      $('language').value = '';
      fillVoices();
      $('voice').value = voice.id;
    }
  } catch (error) {
    say('clone-status', error.message, true);
  } finally {
    $('clone-button').disabled = false;
  }
}

// ---- transcription ----

function stamp(seconds) {
  const minutes = Math.floor(seconds / 60);
  return `${minutes}:${(seconds - minutes * 60).toFixed(2).padStart(5, '0')}`;
}

async function transcribe() {
  if (!state.transcribeClip) {
    say('transcribe-status', 'Choose a file or record first.', true);
    return;
  }
  const form = new FormData();
  form.append('model', 'chorus');
  form.append('response_format', 'verbose_json');
  form.append('file', state.transcribeClip, 'audio.wav');
  $('transcribe-button').disabled = true;
  say('transcribe-status', 'Listening…');
  try {
    const result = await (await api('/v1/audio/transcriptions', { method: 'POST', body: form })).json();
    $('transcript').textContent = result.text || '(no speech heard)';
    $('segments').replaceChildren(...result.segments.map((segment) => {
      const item = document.createElement('li');
      const time = document.createElement('time');
      time.textContent = `${stamp(segment.start)}–${stamp(segment.end)}`;
      item.append(time, segment.text);
      return item;
    }));
    say('transcribe-status', `${result.duration.toFixed(1)} s of audio, ${result.segments.length} stretch(es) of speech.`);
  } catch (error) {
    say('transcribe-status', error.message, true);
  } finally {
    $('transcribe-button').disabled = false;
  }
}

// ---- wiring ----

function wire() {
  $('speak-form').addEventListener('submit', (event) => { event.preventDefault(); speak(); });
  $('stop-button').addEventListener('click', () => { stop(); say('speak-status', 'Stopped.'); });
  $('text').addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) { event.preventDefault(); speak(); }
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && state.speaking) { stop(); say('speak-status', 'Stopped.'); }
  });
  $('speed').addEventListener('input', () => {
    $('speed-value').textContent = `${Number($('speed').value).toFixed(2)}×`;
    localStorage.setItem('chorus-speed', $('speed').value);
  });
  $('engine').addEventListener('change', () => {
    localStorage.setItem('chorus-engine', $('engine').value);
    showEngineOptions();
    loadVoices().catch((error) => say('speak-status', error.message, true));
  });
  $('language').addEventListener('change', () => {
    localStorage.setItem(`chorus-language-${$('engine').value}`, $('language').value);
    fillVoices();
  });
  $('voice').addEventListener('change', () => localStorage.setItem(`chorus-voice-${$('engine').value}`, $('voice').value));

  $('key').value = state.key;
  $('key-box').open = false;
  $('key-form').addEventListener('submit', (event) => {
    event.preventDefault();
    state.key = $('key').value.trim();
    localStorage.setItem('chorus-api-key', state.key);
    start();
  });

  $('clone-form').addEventListener('submit', (event) => { event.preventDefault(); clone(); });
  $('clone-engine').addEventListener('change', showCloneNeeds);
  $('clone-file').addEventListener('change', async () => {
    const file = $('clone-file').files[0];
    if (!file) return;
    try {
      state.cloneClip = await asWAV(file);
      preview('clone-preview', state.cloneClip);
      say('clone-status', `Clip ready: ${file.name}.`);
    } catch (error) {
      say('clone-status', error.message, true);
    }
  });
  $('clone-record').addEventListener('click', () => toggleRecording($('clone-record'), 'clone-status', (wav) => {
    $('clone-file').value = '';
    state.cloneClip = wav;
    preview('clone-preview', wav);
  }));

  $('transcribe-form').addEventListener('submit', (event) => { event.preventDefault(); transcribe(); });
  $('transcribe-file').addEventListener('change', async () => {
    const file = $('transcribe-file').files[0];
    if (!file) return;
    try {
      state.transcribeClip = await asWAV(file);
      preview('transcribe-preview', state.transcribeClip);
      say('transcribe-status', `Ready: ${file.name}.`);
    } catch (error) {
      say('transcribe-status', error.message, true);
    }
  });
  $('transcribe-record').addEventListener('click', () => toggleRecording($('transcribe-record'), 'transcribe-status', (wav) => {
    $('transcribe-file').value = '';
    state.transcribeClip = wav;
    preview('transcribe-preview', wav);
  }));
  $('history-title').tabIndex = -1;

  const speed = localStorage.getItem('chorus-speed');
  if (speed) { $('speed').value = speed; $('speed-value').textContent = `${Number(speed).toFixed(2)}×`; }
}

async function start() {
  try {
    await loadModels();
  } catch (error) {
    say('speak-status', error.message, true);
  }
  await loadHistory();
}

// What Web Audio was given for the last utterance, for eval/playground_check.py and the curious.
window.__chorusAudioState = () => ({
  scheduled: state.scheduledPieces,
  contextState: state.audioContext ? state.audioContext.state : 'none',
  contextTime: state.audioContext ? state.audioContext.currentTime : 0,
});

wire();
start();
