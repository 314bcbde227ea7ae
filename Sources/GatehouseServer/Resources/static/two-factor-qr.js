// Gatehouse settings: draws the two-factor enrolment page's otpauth:// link as a QR code to scan with an
// authenticator app. Loaded from /static after the vendored qrcode-generator (the page's CSP allows same-origin
// scripts only); the QR code is an <img> with an SVG data: URL (img-src allows data:), so no markup is injected.
(function () {
  "use strict";
  var link = document.getElementById("otpauth-uri");
  var place = document.getElementById("otpauth-qr");
  if (!link || !place || typeof qrcode !== "function") { return; }
  var uri = link.getAttribute("href");
  // The URI is ASCII (its parts are percent-encoded); UTF-8 keeps any other character intact all the same.
  qrcode.stringToBytes = qrcode.stringToBytesFuncs["UTF-8"];
  var code = qrcode(0, "M"); // the smallest version that fits, medium error correction
  code.addData(uri, "Byte");
  code.make();
  var image = document.createElement("img");
  image.id = "otpauth-qr-image";
  image.src = "data:image/svg+xml," + encodeURIComponent(code.createSvgTag({ cellSize: 4, margin: 16, scalable: true }));
  image.width = 220;
  image.height = 220;
  image.alt = "QR code of the otpauth link below: scan it with your authenticator app";
  place.appendChild(image);
  place.hidden = false;
}());
