#!/usr/bin/env node
import { runCli } from '../dist/main.js';

runCli();
