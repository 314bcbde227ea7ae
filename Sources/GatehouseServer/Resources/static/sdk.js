/*
 * Gatehouse's JavaScript SDK: the documented public API of Facebook's SDK for JavaScript (FB.init, FB.login,
 * FB.getLoginStatus, FB.api, FB.ui, FB.Event, FB.XFBML), talking to the Gatehouse that served this file.
 * Change `https://connect.facebook.net/en_US/sdk.js` to `http://127.0.0.1:8080/en_US/sdk.js` and nothing else.
 *
 * Plain JavaScript, no build step, and it loads nothing: the dialogs open in popups on Gatehouse, whose hand-back
 * page (/x/connect/xd_arbiter) posts the answer to this page's origin only, and this script accepts messages from
 * Gatehouse's origin and the popup it opened only. Not implemented: see README, "Web apps: the JavaScript SDK".
 */
(function (window, document) {
  'use strict';
  if (window.FB && window.FB.__gatehouse) return;

  // Where this script came from is where Gatehouse is.
  var script = document.currentScript;
  if (!script) {
    var all = document.getElementsByTagName('script');
    for (var i = all.length - 1; i >= 0; i--) if (/\/sdk(\/debug)?\.js(\?|#|$)/.test(all[i].src)) { script = all[i]; break; }
  }
  var BASE = new URL(script ? script.src : '/', window.location.href).origin;
  var PAGE = window.location.origin;

  var settings = { appId: null, version: null, cookie: false, status: false, xfbml: false };
  var loginStatus;        // undefined until first known: 'connected', 'not_authorized' or 'unknown'
  var authResponse = null;
  var statusKnown = false;
  var statusExpiresAt = 0;
  var pendingStatus = null; // callbacks waiting for the status request in flight
  var subscribers = {};

  function log(level, message) {
    if (window.console && window.console[level]) window.console[level]('FB (Gatehouse): ' + message);
  }

  function needsInit(name) {
    if (settings.appId) return false;
    log('error', name + ' called before FB.init().');
    return true;
  }

  function versionPrefix() { return settings.version ? '/' + settings.version : ''; }

  function encode(params) {
    var parts = [];
    Object.keys(params).forEach(function (key) {
      var value = params[key];
      if (value === undefined || value === null) return;
      if (typeof value === 'object') value = JSON.stringify(value);
      parts.push(encodeURIComponent(key) + '=' + encodeURIComponent(String(value)));
    });
    return parts.join('&');
  }

  function base64URLDecode(text) {
    var b64 = text.replace(/-/g, '+').replace(/_/g, '/');
    while (b64.length % 4) b64 += '=';
    var binary = window.atob(b64);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return new TextDecoder().decode(bytes);
  }

  function signedRequestPayload(signed) {
    try { return JSON.parse(base64URLDecode(String(signed).split('.')[1])); } catch (e) { return null; }
  }

  function randomState() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ('0' + b.toString(16)).slice(-2); }).join('');
  }

  // MARK: Events

  var Event = {
    subscribe: function (name, callback) {
      (subscribers[name] = subscribers[name] || []).push(callback);
    },
    unsubscribe: function (name, callback) {
      var list = subscribers[name] || [];
      var at = list.indexOf(callback);
      if (at >= 0) list.splice(at, 1);
    },
    fire: function (name) {
      var args = Array.prototype.slice.call(arguments, 1);
      (subscribers[name] || []).slice().forEach(function (callback) {
        try { callback.apply(null, args); } catch (e) { log('error', name + ' subscriber threw: ' + e); }
      });
    }
  };

  // MARK: Status, the authResponse and the fbsr_ cookie

  function response() { return { authResponse: authResponse, status: loginStatus || 'unknown' }; }

  function cookieName() { return 'fbsr_' + settings.appId; }

  function writeCookie() {
    if (!settings.cookie || !settings.appId) return;
    var secure = window.location.protocol === 'https:' ? '; Secure' : '';
    if (authResponse && authResponse.signedRequest) {
      document.cookie = cookieName() + '=' + authResponse.signedRequest + '; path=/; max-age=' +
        (authResponse.expiresIn || 7200) + '; SameSite=Lax' + secure;
    } else {
      document.cookie = cookieName() + '=; path=/; expires=Thu, 01 Jan 1970 00:00:01 GMT; SameSite=Lax' + secure;
    }
  }

  // Sets the status and the authResponse, and fires Facebook's auth events for what changed.
  function setAuth(newAuth, newStatus) {
    var before = loginStatus || 'unknown';
    var beforeToken = authResponse && authResponse.accessToken;
    authResponse = newAuth;
    loginStatus = newStatus;
    statusKnown = true;
    statusExpiresAt = newAuth && newAuth.expiresIn ? Date.now() + newAuth.expiresIn * 1000 : Infinity;
    writeCookie();
    var now = response();
    var tokenChanged = (newAuth && newAuth.accessToken) !== beforeToken;
    if (before !== 'connected' && newStatus === 'connected') Event.fire('auth.login', now);
    if (before === 'connected' && newStatus !== 'connected') Event.fire('auth.logout', now);
    if (tokenChanged) Event.fire('auth.authResponseChange', now);
    if (before !== newStatus) Event.fire('auth.statusChange', now);
  }

  function getLoginStatus(callback, force) {
    if (needsInit('FB.getLoginStatus()')) return;
    if (statusKnown && !force && Date.now() < statusExpiresAt) {
      if (callback) callback(response());
      return;
    }
    if (pendingStatus) { if (callback) pendingStatus.push(callback); return; }
    pendingStatus = callback ? [callback] : [];
    var url = BASE + '/x/oauth/status?' + encode({ client_id: settings.appId, origin: PAGE, sdk: 'joey' });
    window.fetch(url, { credentials: 'include', cache: 'no-store' })
      .then(function (reply) { return reply.json(); })
      .then(function (body) {
        if (body.error) {
          log('error', body.error.message);
          setAuth(null, 'unknown');
        } else {
          setAuth(body.authResponse || null, body.status);
        }
      }, function (error) {
        log('error', 'could not reach Gatehouse at ' + BASE + ': ' + error);
        setAuth(null, 'unknown');
      })
      .then(function () {
        var waiting = pendingStatus;
        pendingStatus = null;
        waiting.forEach(function (cb) { try { cb(response()); } catch (e) { log('error', 'callback threw: ' + e); } });
      });
  }

  // MARK: Popups

  var popupSizes = { oauth: [600, 679], feed: [575, 500], apprequests: [627, 450] };

  // Opens a Gatehouse dialog in a popup and calls `done(result)` with the arbiter's answer, or `done(null)` when
  // the popup was blocked or closed without one.
  function openDialog(name, params, done) {
    var state = randomState();
    params.state = state;
    params.display = 'popup';
    params.redirect_uri = '/x/connect/xd_arbiter?' + encode({ origin: PAGE, relation: 'opener' });
    var size = popupSizes[name] || [600, 600];
    var left = (window.screenX || 0) + Math.max(0, ((window.outerWidth || size[0]) - size[0]) / 2);
    var top = (window.screenY || 0) + Math.max(0, ((window.outerHeight || size[1]) - size[1]) / 2.5);
    var url = BASE + versionPrefix() + '/dialog/' + name + '?' + encode(params);
    var popup = window.open(url, '_blank', 'popup=yes,width=' + size[0] + ',height=' + size[1] + ',left=' + left + ',top=' + top);
    var finished = false;
    function finish(result) {
      if (finished) return;
      finished = true;
      window.removeEventListener('message', onMessage);
      window.clearInterval(watch);
      done(result);
    }
    function onMessage(event) {
      // Only Gatehouse's hand-back page, in the popup opened here, for this very dialog.
      if (event.origin !== BASE || event.source !== popup) return;
      var data = event.data;
      if (!data || data.gatehouse !== 'xd_arbiter' || !data.result) return;
      // The login dialog echoes `state`; the share and request dialogs do not (the popup check above binds them).
      if (data.result.state !== undefined && data.result.state !== state) return;
      finish(data.result);
    }
    if (!popup) {
      log('error', 'the popup was blocked: call FB.login() and FB.ui() from a click handler.');
      var watch = 0;
      window.setTimeout(function () { finish(null); }, 0);
      return;
    }
    window.addEventListener('message', onMessage);
    var closedAt = 0;
    var watch = window.setInterval(function () {
      if (!popup.closed) return;
      // The answer's message may still be on its way; give it a moment before calling this a cancel.
      if (!closedAt) { closedAt = Date.now(); return; }
      if (Date.now() - closedAt > 400) finish(null);
    }, 100);
  }

  // MARK: Login and logout

  function authFromResult(result, returnScopes) {
    var payload = signedRequestPayload(result.signed_request) || {};
    var auth = {
      accessToken: result.access_token,
      expiresIn: Number(result.expires_in),
      data_access_expiration_time: Number(result.data_access_expiration_time),
      signedRequest: result.signed_request,
      userID: String(payload.user_id || ''),
      graphDomain: result.graph_domain || 'facebook'
    };
    if (returnScopes) auth.grantedScopes = result.granted_scopes || '';
    return auth;
  }

  function notConnected() {
    return { authResponse: null, status: loginStatus === 'not_authorized' ? 'not_authorized' : 'unknown' };
  }

  function login(callback, options) {
    if (needsInit('FB.login()')) return;
    options = options || {};
    var returnScopes = options.return_scopes === true || options.return_scopes === 'true';
    var params = {
      client_id: settings.appId, response_type: 'token,signed_request,graph_domain', sdk: 'joey',
      scope: Array.isArray(options.scope) ? options.scope.join(',') : options.scope,
      auth_type: options.auth_type, return_scopes: returnScopes ? 'true' : undefined,
      enable_profile_selector: options.enable_profile_selector ? 'true' : undefined,
      locale: 'en_US'
    };
    openDialog('oauth', params, function (result) {
      var answer;
      if (result && result.access_token) {
        var auth = authFromResult(result, returnScopes);
        setAuth(auth, 'connected');
        answer = response();
      } else if (loginStatus === 'connected') {
        // Cancelled while already connected (a rerequest, say): still connected, with the same token.
        answer = response();
      } else {
        answer = notConnected();
      }
      if (callback) callback(answer);
    });
  }

  function logout(callback) {
    if (needsInit('FB.logout()')) return;
    var token = authResponse && authResponse.accessToken;
    if (!token) log('error', 'FB.logout() called without an access token.');
    window.fetch(BASE + '/x/oauth/logout', {
      method: 'POST', credentials: 'include', cache: 'no-store',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: encode({ client_id: settings.appId, access_token: token || undefined })
    }).catch(function (error) { log('error', 'could not reach Gatehouse: ' + error); })
      .then(function () {
        setAuth(null, 'unknown');
        if (callback) callback(response());
      });
  }

  // MARK: Graph API

  function api(path) {
    var method = 'get', params = {}, callback = null;
    for (var i = 1; i < arguments.length; i++) {
      var arg = arguments[i];
      if (typeof arg === 'string') method = arg.toLowerCase();
      else if (typeof arg === 'function') callback = arg;
      else if (arg && typeof arg === 'object') params = Object.assign({}, arg);
    }
    callback = callback || function () {};
    path = String(path || '/');
    var query = path.indexOf('?');
    if (query >= 0) {
      new URLSearchParams(path.slice(query + 1)).forEach(function (v, k) { if (!(k in params)) params[k] = v; });
      path = path.slice(0, query);
    }
    if (!params.access_token && authResponse) params.access_token = authResponse.accessToken;
    var url = BASE + versionPrefix() + '/' + path.replace(/^\/+/, '');
    var init = { cache: 'no-store' };
    if (method === 'get') {
      var encoded = encode(params);
      if (encoded) url += '?' + encoded;
    } else {
      // POST with a method override, as Facebook's SDK sends DELETE: a simple request, no preflight.
      if (method !== 'post') params.method = method;
      init.method = 'POST';
      init.headers = { 'Content-Type': 'application/x-www-form-urlencoded' };
      init.body = encode(params);
    }
    window.fetch(url, init)
      .then(function (reply) { return reply.text(); })
      .then(function (text) {
        var body;
        try { body = JSON.parse(text); } catch (e) { body = { error: { message: 'Invalid JSON from the Graph API', type: 'http' } }; }
        callback(body);
      }, function (error) {
        callback({ error: { message: 'Network request failed: ' + error, type: 'http', code: 1 } });
      });
  }

  // MARK: Dialogs

  function ui(params, callback) {
    if (needsInit('FB.ui()')) return;
    params = Object.assign({}, params || {});
    var method = params.method;
    delete params.method;
    callback = callback || function () {};
    if (method === 'permissions.oauth' || method === 'oauth') {
      login(callback, params);
      return;
    }
    var dialog = method;
    if (method === 'share') {
      // Gatehouse has one posting dialog: the share dialog posts `href` through the feed dialog.
      dialog = 'feed';
      params.link = params.href;
      delete params.href;
    }
    if (dialog !== 'feed' && dialog !== 'apprequests') {
      log('error', 'FB.ui() method "' + method + '" is not available on Gatehouse.');
      window.setTimeout(function () { callback({ error_code: 3, error_message: 'Unknown method' }); }, 0);
      return;
    }
    if (Array.isArray(params.to)) params.to = params.to.join(',');
    params.app_id = settings.appId;
    openDialog(dialog, params, function (result) {
      if (!result) { callback(undefined); return; }
      delete result.state;
      var answer = {};
      var to = [];
      Object.keys(result).forEach(function (key) {
        var m = /^to\[(\d+)\]$/.exec(key);
        if (m) to[Number(m[1])] = result[key];
        else if (key === 'error_code') answer.error_code = Number(result[key]);
        else answer[key] = result[key];
      });
      if (to.length) answer.to = to;
      if (method === 'share' && answer.post_id === undefined && answer.error_code === undefined) answer = [];
      callback(answer);
    });
  }

  // MARK: XFBML: fb-login-button

  var buttonLabels = {
    continue_with: 'Continue with Facebook', login_with: 'Log in with Facebook', login: 'Log In'
  };
  var buttonSizes = { small: ['11px', '4px 8px'], medium: ['13px', '6px 12px'], large: ['16px', '10px 18px'] };

  function runOnLogin(code, answer) {
    if (!code) return;
    var name = code.replace(/\(\s*\)\s*;?\s*$/, '').trim();
    var target = /^[\w$.]+$/.test(name) ? name.split('.').reduce(function (o, k) { return o && o[k]; }, window) : null;
    if (typeof target === 'function') { target(answer); return; }
    try { new Function('response', code)(answer); } catch (e) { log('error', 'data-onlogin failed: ' + e); }
  }

  function renderLoginButton(element) {
    if (element.getAttribute('data-gatehouse-rendered')) return;
    element.setAttribute('data-gatehouse-rendered', '1');
    var attr = function (name) {
      return element.getAttribute('data-' + name) || element.getAttribute(name.replace(/-/g, '_')) || element.getAttribute(name);
    };
    var size = buttonSizes[attr('size')] || buttonSizes.small;
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'fb-login-button-gatehouse';
    button.textContent = buttonLabels[attr('button-type')] || buttonLabels.login_with;
    var style = button.style;
    style.background = '#1877f2'; style.color = '#fff'; style.border = '0'; style.borderRadius = '4px';
    style.fontFamily = 'Helvetica, Arial, sans-serif'; style.fontWeight = 'bold'; style.cursor = 'pointer';
    style.fontSize = size[0]; style.padding = size[1];
    button.addEventListener('click', function () {
      login(function (answer) { runOnLogin(attr('onlogin'), answer); }, {
        scope: attr('scope') || undefined, auth_type: attr('auth-type') || undefined,
        return_scopes: attr('return-scopes') === 'true'
      });
    });
    element.appendChild(button);
  }

  function parse(root, callback) {
    root = root || document.body;
    if (root) {
      var buttons = Array.prototype.slice.call(root.querySelectorAll('.fb-login-button'))
        .concat(Array.prototype.slice.call(root.getElementsByTagName('fb:login-button')));
      buttons.forEach(renderLoginButton);
      var others = root.querySelectorAll('.fb-like, .fb-share-button, .fb-comments, .fb-page, .fb-customerchat, .fb-video, .fb-post');
      if (others.length) log('warn', others.length + ' XFBML plugin(s) other than fb-login-button are not rendered by Gatehouse.');
    }
    window.setTimeout(function () {
      Event.fire('xfbml.render');
      if (callback) callback();
    }, 0);
  }

  // MARK: Init

  function init(options) {
    options = options || {};
    if (!options.appId) { log('error', 'FB.init() needs an appId.'); return; }
    settings.appId = String(options.appId);
    settings.version = options.version || null;
    if (settings.version && !/^v\d+\.\d+$/.test(settings.version)) {
      log('error', 'invalid version "' + settings.version + '": use vX.Y, for example v19.0.');
      settings.version = null;
    }
    settings.cookie = !!options.cookie;
    settings.status = !!options.status;
    settings.xfbml = !!options.xfbml;
    if (settings.status) getLoginStatus();
    if (settings.xfbml) {
      if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', function () { parse(); });
      else parse();
    }
  }

  // What Gatehouse does not emulate answers harmlessly, once noted in the console.
  var noted = {};
  function notEmulated(name, result) {
    return function () {
      if (!noted[name]) { noted[name] = true; log('info', name + ' is not emulated by Gatehouse; the call does nothing.'); }
      var callback = Array.prototype.slice.call(arguments).filter(function (a) { return typeof a === 'function'; })[0];
      if (callback && result !== undefined) window.setTimeout(function () { callback(result); }, 0);
      return result;
    };
  }

  window.FB = {
    __gatehouse: BASE,
    init: init,
    getLoginStatus: getLoginStatus,
    login: login,
    logout: logout,
    getAuthResponse: function () { return authResponse; },
    getAccessToken: function () { return authResponse ? authResponse.accessToken : null; },
    getUserID: function () { return authResponse ? authResponse.userID : ''; },
    api: api,
    ui: ui,
    Event: { subscribe: Event.subscribe, unsubscribe: Event.unsubscribe },
    XFBML: { parse: parse },
    AppEvents: {
      logPageView: notEmulated('FB.AppEvents.logPageView'), logEvent: notEmulated('FB.AppEvents.logEvent'),
      logPurchase: notEmulated('FB.AppEvents.logPurchase'), setUserID: notEmulated('FB.AppEvents.setUserID'),
      EventNames: {}, ParameterNames: {}
    },
    CustomerChat: {
      show: notEmulated('FB.CustomerChat.show'), hide: notEmulated('FB.CustomerChat.hide'),
      showDialog: notEmulated('FB.CustomerChat.showDialog'), hideDialog: notEmulated('FB.CustomerChat.hideDialog'),
      update: notEmulated('FB.CustomerChat.update')
    },
    Canvas: {
      setSize: notEmulated('FB.Canvas.setSize'), setAutoGrow: notEmulated('FB.Canvas.setAutoGrow'),
      scrollTo: notEmulated('FB.Canvas.scrollTo'), getPageInfo: notEmulated('FB.Canvas.getPageInfo', {}),
      Prefetcher: { addStaticResource: notEmulated('FB.Canvas.Prefetcher.addStaticResource') }
    }
  };

  if (typeof window.fbAsyncInit === 'function' && !window.fbAsyncInit.hasRun) {
    window.fbAsyncInit.hasRun = true;
    try { window.fbAsyncInit(); } catch (e) { log('error', 'fbAsyncInit threw: ' + e); }
  }
})(window, document);
