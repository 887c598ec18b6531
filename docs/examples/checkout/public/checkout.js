// The checkout page's side of 3-D Secure: the device data capture in a
// hidden iframe, then the lookup (sent by the merchant's server), the
// challenge in a visible iframe when the lookup asks for one, and the
// result as the server's enquiry and the signed callback tell it.
(function () {
  'use strict';

  var $ = function (id) { return document.getElementById(id); };

  // show writes what a step found, in words and as data-* attributes
  // (the tests read those).
  function show(id, text, data) {
    var el = $(id);
    el.textContent = text;
    Object.keys(data || {}).forEach(function (k) {
      if (data[k] !== undefined && data[k] !== null) { el.dataset[k] = String(data[k]); }
    });
  }

  function api(path, body) {
    var init = body === undefined ? {} : {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    };
    return fetch(path, init).then(function (r) {
      return r.json().then(function (data) {
        if (!r.ok) { throw new Error(data.error || ('HTTP ' + r.status)); }
        return data;
      });
    });
  }

  // readCaptureMessage reads the capture's message to this window, or
  // returns null for any other message. The message is an object with
  // flat fields, or a JSON string whose Payload holds them: both are read.
  function readCaptureMessage(data) {
    var d = data;
    if (typeof d === 'string') {
      try { d = JSON.parse(d); } catch (e) { return null; }
    }
    if (!d || typeof d !== 'object' || d.MessageType !== 'profile.completed') { return null; }
    var p = d.Payload && typeof d.Payload === 'object' ? d.Payload : {};
    var pick = function (k) { return d[k] !== undefined ? d[k] : p[k]; };
    return {
      ddcId: pick('SessionId') !== undefined ? pick('SessionId') : pick('ddcId'),
      ok: pick('Status') === true || pick('status') === 'completed',
      threeDSCompInd: pick('threeDSCompInd'),
      errorCode: pick('errorCode'),
    };
  }

  // capture posts the hidden form into the hidden iframe and waits for
  // the sandbox to say it is done (at most 15 s: the lookup goes on
  // without it, and the sandbox then settles threeDSCompInd N).
  function capture(session) {
    var origin = new URL(session.collectUrl).origin;
    return new Promise(function (resolve) {
      var timer;
      function onMessage(e) {
        var m = e.origin === origin ? readCaptureMessage(e.data) : null;
        if (!m || m.ddcId !== session.ddcId) { return; }
        window.removeEventListener('message', onMessage);
        clearTimeout(timer);
        resolve(m);
      }
      window.addEventListener('message', onMessage);
      timer = setTimeout(function () {
        window.removeEventListener('message', onMessage);
        resolve({ ok: false, timedOut: true });
      }, 15000);
      var f = $('ddc-form');
      f.action = session.collectUrl;
      f.elements.bin.value = session.bin;
      f.elements.callbackUrl.value = session.callbackUrl;
      f.elements.ddcId.value = session.ddcId;
      f.elements.jwt.value = session.jwt;
      f.submit();
    });
  }

  // challenge shows the lookup's challengeHtml in the challenge iframe and
  // waits for the page the server's notificationUrl answers to tell this
  // window the CRes.
  function challenge(html) {
    return new Promise(function (resolve) {
      function onMessage(e) {
        if (e.origin !== window.location.origin || !e.data || e.data.type !== 'example-shop:cres') { return; }
        window.removeEventListener('message', onMessage);
        resolve(e.data);
      }
      window.addEventListener('message', onMessage);
      var frame = $('challenge');
      frame.hidden = false;
      frame.srcdoc = html;
    });
  }

  // browserInfo is what the browser tells of itself; the server adds the
  // Accept header and the IP address it saw.
  function browserInfo() {
    return {
      javascriptEnabled: true,
      javaEnabled: false,
      language: navigator.language,
      colorDepth: String(screen.colorDepth),
      screenHeight: String(screen.height),
      screenWidth: String(screen.width),
      timeZone: String(new Date().getTimezoneOffset()),
      userAgent: navigator.userAgent,
    };
  }

  function sleep(ms) { return new Promise(function (r) { setTimeout(r, ms); }); }

  // waitForCallback asks the server until the sandbox's result callback
  // has reached it (at most 10 s).
  async function waitForCallback(id) {
    for (var i = 0; i < 40; i++) {
      var order = await api('/api/orders/' + encodeURIComponent(id));
      if (order.callback) { return order.callback; }
      await sleep(250);
    }
    return null;
  }

  async function pay(ev) {
    ev.preventDefault();
    $('pay').disabled = true;
    var card = $('card').value.replace(/\s+/g, '');
    var order = $('order').value || 'order-' + Math.random().toString(36).slice(2, 10);
    try {
      show('capture', 'running');
      var session = await api('/api/capture', { card: card, order: order });
      var cap = await capture(session);
      show('capture', cap.ok ? 'completed, threeDSCompInd ' + cap.threeDSCompInd : 'failed' + (cap.errorCode ? ', ' + cap.errorCode : ''),
        { status: cap.ok ? 'completed' : 'failed', compInd: cap.threeDSCompInd });

      var lookup = await api('/api/pay', { card: card, order: order, ddcId: session.ddcId, browserInfo: browserInfo() });
      show('lookup', 'status ' + lookup.status, { status: lookup.status, transId: lookup.threeDsServerTransId });
      if (lookup.status === 'C') {
        var cres = await challenge(lookup.challengeHtml);
        $('challenge').hidden = true;
        show('lookup', 'status C, challenge ended with ' + cres.transStatus, { cres: cres.transStatus });
      }

      var result = await api('/api/orders/' + encodeURIComponent(lookup.threeDsServerTransId));
      show('result', result.transactionStatus + (result.eci ? ', ECI ' + result.eci : '') +
        (result.challengeCancel ? ', challengeCancel ' + result.challengeCancel : ''),
        { status: result.transactionStatus, cancel: result.challengeCancel });

      var cb = await waitForCallback(lookup.threeDsServerTransId);
      show('callback', !cb ? 'not received' : (cb.verified ? 'verified, ' : 'bad signature, ') + cb.transactionStatus,
        { verified: cb ? cb.verified : false });
    } catch (e) {
      show('result', 'error: ' + e.message, { status: 'error' });
    } finally {
      $('pay').disabled = false;
    }
  }

  $('pay-form').addEventListener('submit', pay);
})();
