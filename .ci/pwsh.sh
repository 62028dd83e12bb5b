#!/bin/sh
# pwsh.sh - installs PowerShell 7 as a .NET global tool (the way that
# needs no other package source), unless a pwsh is already there.
# The binary lands in ~/.dotnet/tools/pwsh, where the tests look too.

version=7.6.9
if command -v pwsh >/dev/null 2>&1 || [ -x "$HOME/.dotnet/tools/pwsh" ]; then
	exit 0
fi
if ! command -v dotnet >/dev/null 2>&1; then
	echo "pwsh: no dotnet, so no PowerShell (install the .NET SDK)" >&2
	exit 1
fi
echo "pwsh: dotnet tool install --global PowerShell --version $version" >&2
dotnet tool install --global PowerShell --version $version \
    </dev/null >/dev/null 2>&1 || {
	echo "pwsh: installing PowerShell $version failed" >&2
	exit 1
}
