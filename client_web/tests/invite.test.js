// Unit tests of the links friends are sent (issue 24, js/home.js): their base is the address
// players open that the server gives the page, else the page's own location, and a link that
// reaches this computer only is recognised (run: node --test client_web/tests/).
import assert from "node:assert/strict";
import { test } from "node:test";

import { inviteLink, linkBase, thisComputerOnly, watchLink } from "../js/home.js";

const here = { origin: "http://127.0.0.1:8080", pathname: "/" };

test("the server's address is the links' base, with one slash", () => {
  assert.equal(linkBase("https://poker.example.com", here), "https://poker.example.com/");
  assert.equal(linkBase("https://poker.example.com:8443/", here), "https://poker.example.com:8443/");
  assert.equal(linkBase(" http://192.168.1.20:8080 ", here), "http://192.168.1.20:8080/");
  assert.equal(linkBase("http://[fd00::2]:8080", here), "http://[fd00::2]:8080/");
  assert.equal(inviteLink(linkBase("https://poker.example.com", here), "t12-x_Y", "ab c"),
    "https://poker.example.com/#/table/t12-x_Y?code=ab%20c");
  assert.equal(watchLink(linkBase("https://poker.example.com", here), "t 3"),
    "https://poker.example.com/#/table/t%203/watch");
});

test("without an address (or with a bad one) the page's own location is the base", () => {
  for (const bad of ["", null, undefined, 7, "javascript:alert(1)", "https://a.example/path",
    "https://user@a.example", "ftp://a.example", "https://a.example?x", "https://"]) {
    assert.equal(linkBase(bad, here), "http://127.0.0.1:8080/", String(bad));
  }
  assert.equal(linkBase("", { origin: "https://p.example", pathname: "/index.html" }),
    "https://p.example/index.html");
});

test("a link on the loopback reaches this computer only", () => {
  for (const base of ["http://127.0.0.1:8080/", "http://127.5.0.1/", "http://localhost:8080/",
    "http://LOCALHOST/", "http://app.localhost/", "http://[::1]:8080/", "http://0.0.0.0:8080/"]) {
    assert.equal(thisComputerOnly(base), true, base);
  }
  for (const base of ["http://192.168.1.20:8080/", "https://poker.example.com/",
    "http://127.example.com/", "not a url"]) {
    assert.equal(thisComputerOnly(base), false, base);
  }
});
