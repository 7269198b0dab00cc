// The ready pack: the package's compiled rules (provider/policy). The CLI runs this folder.
"use strict";
require("../dist/policy/pack");
